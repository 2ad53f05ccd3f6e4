import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createDemoReceiver, setDemoCors, type DemoReceiver } from '../demo/receiver.js';
import { REQUEST_BODY_LIMIT, sendJsonRpcError } from '../json-rpc-http.js';
import { plainGuard, receiverGuard } from '../guard.js';
import { sendPlain } from '../http-server.js';
import { BASE_SCOPE, DemoAuthProvider, EXTRA_SCOPE, OFFLINE_SCOPE } from './provider.js';
import { basicOnly, faultPath, otherLoopbackOrigin, parseAuthFaults, type AuthFault } from './faults.js';

/** The tool that needs EXTRA_SCOPE, so a person sees a step-up. */
export const SCOPED_TOOL = 'flaky_job';

export interface DemoAuthOptions {
  /** Where the protected receiver is mounted (/demo/mcp-auth under npm start). */
  receiverPath: string;
  /** Where the authorization server is mounted; the issuer is this origin plus this path. */
  issuerPath: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  cors?: boolean;
}

export interface DemoAuth {
  /** Mount at receiverPath: the demo tools behind a bearer token. */
  receiver: express.Router;
  /** Mount at issuerPath: authorize, consent, token, register. */
  authorizationServer: express.Router;
  /** Mount at the root: the two metadata documents under /.well-known (RFC 9728, RFC 8414 path-inserted). */
  wellKnown: express.Router;
  provider: DemoAuthProvider;
  inner: DemoReceiver;
  close: () => Promise<void>;
}

const tokenBasic: RequestHandler = (req, res, next) =>
  express.urlencoded({ extended: false, limit: 4096 })(req, res, () => basicOnly(req, res, next));

/** The origin a request came to: the issuer and the resource follow the host the person used (127.0.0.1 or localhost). */
function originOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
}

/**
 * An OAuth-protected demo receiver with its own authorization server, on the SDK's server auth handlers:
 * dynamic registration and one pre-registered client, one-click consent, 60-second access tokens with refresh
 * tokens (when offline_access is asked for), and flaky_job behind an extra scope.
 */
export function createDemoAuth(options: DemoAuthOptions): DemoAuth {
  const allowedHosts = options.allowedHosts ?? [];
  const allowedOrigins = options.allowedOrigins ?? [];
  const issuer = (req: Request, faults: readonly AuthFault[] = []) =>
    `${originOf(req)}${options.issuerPath}${faultPath(faults)}`;
  const resource = (req: Request) => `${originOf(req)}${options.receiverPath}`;
  const prmUrl = (req: Request, faults: readonly AuthFault[] = []) =>
    `${originOf(req)}/.well-known/oauth-protected-resource${options.receiverPath}${faults.length > 0 ? `?faults=${faults.join(',')}` : ''}`;
  // Relative: it resolves under whichever issuer path (faulted or not) served the consent page.
  const provider = new DemoAuthProvider({ consentPath: 'consent' });

  const asMetadata = (req: Request): OAuthMetadata => {
    const faults = parseAuthFaults(req.params.faults);
    const base = issuer(req, faults);
    return {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      ...(faults.includes('no-s256') ? {} : { code_challenge_methods_supported: ['S256'] }),
      token_endpoint_auth_methods_supported: faults.includes('basic-auth')
        ? ['client_secret_basic']
        : ['client_secret_post', 'none'],
      scopes_supported: [BASE_SCOPE, EXTRA_SCOPE, OFFLINE_SCOPE],
    };
  };
  const prm = (req: Request): OAuthProtectedResourceMetadata => {
    const faults = parseAuthFaults(req.query.faults);
    return {
      resource: faults.includes('resource-mismatch') ? 'https://elsewhere.example/mcp' : resource(req),
      authorization_servers: [
        faults.includes('other-origin') ? otherLoopbackOrigin(issuer(req, faults)) : issuer(req, faults),
      ],
      scopes_supported: [BASE_SCOPE, EXTRA_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'Taskscope demo receiver (OAuth)',
    };
  };

  const wellKnown = express.Router();
  const sendJson =
    (body: (req: Request) => unknown): RequestHandler =>
    (req, res) => {
      res.set('Access-Control-Allow-Origin', '*').set('Cache-Control', 'no-store').json(body(req));
    };
  // Per route, not router-wide: this router sits at the server's root, in front of everything else. The
  // metadata names this server by its Host header, so the Host is checked as for the receiver.
  const guard = plainGuard({ allowedHosts, allowedOrigins, pages: 'local' });
  wellKnown.get(`/.well-known/oauth-protected-resource${options.receiverPath}`, guard, sendJson(prm));
  wellKnown.get(`/.well-known/oauth-authorization-server${options.issuerPath}`, guard, sendJson(asMetadata));
  wellKnown.get(
    `/.well-known/oauth-authorization-server${options.issuerPath}/faults/:faults`,
    guard,
    sendJson(asMetadata),
  );

  // The same endpoints at the issuer and under each faulted issuer (…/faults/a,b).
  const endpoints = express.Router({ mergeParams: true });
  const faultsHere = (req: Request) => parseAuthFaults(req.params.faults);
  endpoints.use('/authorize', authorizationHandler({ provider, rateLimit: false }));
  endpoints.use(
    '/token',
    (req, res, next) => (faultsHere(req).includes('basic-auth') ? tokenBasic(req, res, next) : next()),
    tokenHandler({ provider, rateLimit: false }),
  );
  endpoints.use(
    '/register',
    clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false }),
  );
  endpoints.post('/consent', express.urlencoded({ extended: false, limit: 4096 }), (req, res) => {
    const body = req.body as { id?: unknown; decision?: unknown };
    const faults = faultsHere(req);
    const iss = issuer(req, faults) + (faults.includes('issuer-mismatch') ? '/not-this-one' : '');
    const target =
      typeof body.id === 'string' ? provider.decide(body.id, body.decision === 'allow', iss) : undefined;
    if (!target)
      return sendPlain(res, 400, 'This sign-in has expired or was answered already: start again.\n');
    res.redirect(302, target);
  });
  const as = express.Router();
  as.use(guard);
  as.use('/faults/:faults', endpoints);
  as.use(endpoints);

  const inner = createDemoReceiver({ allowedHosts, allowedOrigins, cors: options.cors });
  const bearers = new Map<string, RequestHandler>();
  const bearerFor = (req: Request): RequestHandler => {
    const faults = parseAuthFaults(req.query.faults);
    const key = `${originOf(req)} ${faults.join(',')}`;
    let handler = bearers.get(key);
    if (!handler) {
      handler = requireBearerAuth({
        verifier: provider,
        requiredScopes: [BASE_SCOPE],
        resourceMetadataUrl: faults.includes('no-resource-metadata') ? undefined : prmUrl(req, faults),
        expectedResource: new URL(resource(req)),
      });
      // Only allowed hosts get here, so this holds a handful at most.
      if (bearers.size < 16) bearers.set(key, handler);
    }
    return handler;
  };

  const receiver = express.Router();
  receiver.use(
    receiverGuard({
      allowedHosts,
      allowedOrigins,
      cors: options.cors,
      sendError: sendJsonRpcError,
      setCors: (_req, res, origin) => setDemoCors(res, origin, ['www-authenticate']),
    }),
  );
  receiver.use((req, res, next) => bearerFor(req)(req, res, next));
  receiver.post(
    '/',
    express.json({ limit: REQUEST_BODY_LIMIT }),
    (req: Request, res: Response, next: NextFunction) => {
      const call = req.body as { method?: unknown; params?: { name?: unknown } } | undefined;
      const granted = req.auth?.scopes ?? [];
      if (call?.method !== 'tools/call' || call.params?.name !== SCOPED_TOOL || granted.includes(EXTRA_SCOPE))
        return next();
      res
        .status(403)
        .set(
          'WWW-Authenticate',
          `Bearer error="insufficient_scope", scope="${BASE_SCOPE} ${EXTRA_SCOPE}", resource_metadata="${prmUrl(req, parseAuthFaults(req.query.faults))}", error_description="${SCOPED_TOOL} needs ${EXTRA_SCOPE}"`,
        )
        .json({ error: 'insufficient_scope', error_description: `${SCOPED_TOOL} needs ${EXTRA_SCOPE}` });
    },
  );
  // The auth faults are this receiver's: the demo receiver underneath must not read ?faults= as its own.
  receiver.use((req, _res, next) => {
    req.url = req.url.replace(/\?.*$/, '');
    next();
  });
  receiver.use(inner.router);

  return {
    receiver,
    authorizationServer: as,
    wellKnown,
    provider,
    inner,
    close: () => inner.close(),
  };
}
