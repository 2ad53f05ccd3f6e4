import path from 'node:path';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import express from 'express';
import { createDemoReceiver, type DemoReceiver } from './demo/receiver.js';
import { createDemoReceiver2026, type DemoReceiver2026 } from './demo-2026/receiver.js';
import { createDemoAuth, type DemoAuth } from './demo-auth/receiver.js';
import { listenOnLoopback, plainErrors, plainNotFound, type Listening } from './http-server.js';
import { plainGuard } from './guard.js';
import { faultsListing } from './demo/faults-listing.js';
import { createRelay, newRelayToken } from './relay/route.js';
import { packageRoot } from './package-root.js';
import { createStdioBridge, type StdioBridge, type StdioBridgeOptions } from './stdio/bridge.js';
import { createProxyRoutes, type ProxyRoute, type ProxyRoutes } from './proxy/route.js';
import { httpSource } from './observed/http-source.js';
import { observedRoutes } from './observed/routes.js';
import type { ObservedSource } from './observed/source.js';

const root = packageRoot();

export interface StartedApp extends Listening {
  receiver: DemoReceiver;
  /** The same demo tools over 2026-07-28 and the tasks extension, at /demo/mcp-2026. */
  receiver2026: DemoReceiver2026;
  /** The same demo tools behind OAuth, at /demo/mcp-auth, with its authorization server at /demo/auth. */
  demoAuth: DemoAuth;
  /** What /relay wants in X-Taskscope-Relay-Token; the page reads it from /relay/token. */
  relayToken: string;
  /** The stdio servers offered at /stdio/<name>/mcp, when any were named. */
  stdio?: StdioBridge;
  /** The client endpoints at /proxy/<name>/mcp and their tap, when any were named. */
  proxy?: ProxyRoutes;
  /** What the page reads at /observed/*: each HTTP proxy's traffic, then the sources passed in. */
  observed: readonly ObservedSource[];
}

export interface StartOptions {
  port: number;
  dev?: boolean;
  /** The built dashboard; defaults to dist/. */
  staticDir?: string;
  /** Host names served besides loopback ones (see ALLOWED_HOSTS); anything else gets 403. */
  allowedHosts?: string[];
  /** A fixed relay token (tests); a fresh random one per start otherwise. */
  relayToken?: string;
  /** The address to listen on; loopback unless the person allowed more (`--allow-remote`). */
  host?: string;
  /**
   * Off when others may reach the server (`--allow-remote`): then /relay/token gives the token to nobody, and
   * the person enters the one printed on the terminal in the page.
   */
  handOutToken?: boolean;
  /** stdio servers to offer as receivers (from the command line or a config file the person named). */
  stdio?: Pick<StdioBridgeOptions, 'receivers' | 'maxChildren' | 'idleMs' | 'child'>;
  /** The receiver the bare root URL opens (`/` redirects to `/?server=…`); the demo receiver otherwise. */
  home?: string;
  /** Upstreams to forward to from /proxy/<name>/mcp (`taskscope proxy`). */
  proxies?: readonly ProxyRoute[];
  /** Told what a proxy refuses of its upstream, and what the page is told of it (a 401); stderr by default. */
  onProxyWarning?: (message: string) => void;
  /** Observed traffic besides the HTTP proxies' (`proxy --stdio` passes its tap's). */
  observed?: readonly ObservedSource[];
}

/**
 * The server behind `npm start`: the built dashboard and the demo receiver at /demo/mcp on one origin, so the
 * page connects at once with no CORS or setup. `dev` swaps the built files for Vite's middleware (HMR).
 */
export async function startApp({
  port,
  dev = false,
  staticDir = path.join(root, 'dist'),
  allowedHosts = [],
  relayToken = newRelayToken(),
  host = '127.0.0.1',
  handOutToken = true,
  stdio,
  home,
  proxies = [],
  onProxyWarning,
  observed: extraSources = [],
}: StartOptions): Promise<StartedApp> {
  const sourceNames = [...proxies.map((p) => p.name), ...extraSources.map((s) => s.name)];
  if (new Set(sourceNames).size < sourceNames.length)
    throw new Error('Two observed sources (proxies) have the same name');
  const app = express();
  app.disable('x-powered-by');
  // No page may frame Taskscope: a framing page could steer a person's clicks onto "Connect through the
  // local relay" and its confirmation.
  app.use((_req, res, next) => {
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    next();
  });
  // The receiver checks Host (and Origin) itself so that its refusals are JSON-RPC; the guard below covers the rest.
  const receiver = createDemoReceiver({ allowedHosts });
  const receiver2026 = createDemoReceiver2026({ allowedHosts });
  app.use('/demo/mcp', receiver.router);
  app.use('/demo/mcp-2026', receiver2026.router);
  const demoAuth = createDemoAuth({ receiverPath: '/demo/mcp-auth', issuerPath: '/demo/auth', allowedHosts });
  app.use('/demo/mcp-auth', demoAuth.receiver);
  app.use('/demo/auth', demoAuth.authorizationServer);
  app.use(demoAuth.wellKnown);
  // Its refusals are JSON-RPC, as the relay's, so it checks Host, Origin and the token itself (guard.ts).
  const bridge =
    stdio && stdio.receivers.length > 0
      ? createStdioBridge({ ...stdio, token: relayToken, allowedHosts })
      : undefined;
  if (bridge) app.use(bridge.handler);

  // The proxy answers before Express: none of the page's headers, guards or fallbacks touch what it passes.
  const proxy =
    proxies.length > 0 ? createProxyRoutes(proxies, { allowedHosts, onWarning: onProxyWarning }) : undefined;
  const httpSources = proxy
    ? proxy.targets.map(({ name, upstream }) =>
        httpSource({
          tap: proxy.tap,
          name,
          upstream,
          onNote: (note) => (onProxyWarning ?? console.error)(`Taskscope proxy: ${note}`),
        }),
      )
    : [];
  const observed = [...httpSources, ...extraSources];
  // Its refusals are JSON, as the relay's, so it checks Host, Origin and the token itself.
  app.use(observedRoutes({ token: relayToken, allowedHosts, sources: observed }));
  // Everything else here is Taskscope's own page and what only it may ask for.
  app.use(plainGuard({ allowedHosts, pages: 'own' }));
  app.get('/demo/faults', faultsListing({ receiver: '/demo/mcp', auth: '/demo/mcp-auth' }));
  const httpServer = proxy
    ? createServer((req, res) => {
        if (!proxy.handle(req, res)) app(req, res);
      })
    : createServer(app);
  // A proxied request is the client's for as long as it lasts: Node's 5-minute cap on receiving one must not cut
  // a slow upload (answers have no cap to begin with, and the server's socket timeout is off by default).
  if (proxy) httpServer.requestTimeout = 0;
  const relay = createRelay({
    token: relayToken,
    allowedHosts,
    handOutToken,
    ownPort: () => {
      const address = httpServer.address();
      return typeof address === 'object' && address ? address.port : undefined;
    },
  });
  app.use(relay.handler);
  if (home !== undefined) {
    const target = `/?server=${encodeURIComponent(home)}`;
    app.get('/', (req, res, next) => (req.originalUrl === '/' ? res.redirect(302, target) : next()));
  }
  let closeVite = async () => {};
  if (dev) {
    const { createServer: createVite } = await import('vite');
    // Hot reload rides on our own server, so dev mode opens no second port.
    const vite = await createVite({
      root,
      // The HMR WebSocket skips Express, so Vite must know the same extra hosts.
      server: { middlewareMode: true, hmr: { server: httpServer }, allowedHosts },
      appType: 'spa',
    });
    app.use(vite.middlewares);
    closeVite = () => vite.close();
  } else {
    if (!existsSync(path.join(staticDir, 'index.html'))) {
      throw new Error(`No build in ${staticDir}. Run \`npm run build\` first (npm start does it for you).`);
    }
    // index.html is never cached: it names this build's hashed bundles, and a stale one would run old code
    // against this server and its relay. The bundles themselves never change under their names.
    app.use(
      express.static(staticDir, {
        index: false,
        maxAge: '1h',
        setHeaders: (res, file) => {
          if (path.basename(file) === 'index.html') res.setHeader('Cache-Control', 'no-store');
        },
      }),
    );
    // Deep links (?task=…) land on index.html; the app routes from the query string.
    app.get(/^\/(?!demo\/).*/, (_req, res) =>
      // Relative to `root`: an absolute path is refused (404) when any folder on it starts with a dot, and npx
      // installs packages under ~/.npm/_npx.
      res.sendFile('index.html', { root: staticDir, headers: { 'Cache-Control': 'no-store' } }),
    );
  }
  app.use(plainNotFound);
  app.use(plainErrors);

  const listening = await listenOnLoopback(httpServer, port, host).catch(async (error: unknown) => {
    await bridge?.close();
    throw error;
  });
  return {
    ...listening,
    receiver,
    receiver2026,
    demoAuth,
    relayToken,
    stdio: bridge,
    proxy,
    observed,
    close: async () => {
      // The servers first: their pages' streams end with them, and no process outlives Taskscope.
      await bridge?.close();
      relay.close();
      proxy?.close();
      for (const source of httpSources) source.close();
      await receiver.close();
      await receiver2026.close();
      await demoAuth.close();
      await closeVite();
      await listening.close();
    },
  };
}
