import express from 'express';
import { createDemoAuth, type DemoAuth } from '../../src/devserver/demo-auth/receiver';
import { listenOnLoopback, type Listening } from '../../src/devserver/http-server';
import type { AuthView } from '../../src/mcp/auth/types';
import type { AuthCallback } from '../../src/mcp/auth/types';

export interface DemoAuthServer extends Listening {
  auth: DemoAuth;
  receiverUrl: string;
  /** Each registration's body as it reached the authorization server, before the SDK's handler read it. */
  registrations: unknown[];
  /** From now on registrations are refused with this answer instead of reaching the handler. */
  refuseRegistrations: (answer: { status: number; body: unknown }) => void;
}

/** The demo receiver behind OAuth and its authorization server, mounted as `npm start` mounts them. */
export async function startDemoAuth(): Promise<DemoAuthServer> {
  const app = express();
  const auth = createDemoAuth({ receiverPath: '/demo/mcp-auth', issuerPath: '/demo/auth' });
  const registrations: unknown[] = [];
  let refusal: { status: number; body: unknown } | undefined;
  // In front of the handler, which then finds the body read and keeps it.
  app.use('/demo/auth', express.json(), (req, res, next) => {
    if (req.method !== 'POST' || !/\/register$/.test(req.path)) return next();
    registrations.push(req.body);
    if (refusal) return void res.status(refusal.status).json(refusal.body);
    next();
  });
  app.use('/demo/mcp-auth', auth.receiver);
  app.use('/demo/auth', auth.authorizationServer);
  app.use(auth.wellKnown);
  const listening = await listenOnLoopback(app, 0);
  return {
    ...listening,
    auth,
    receiverUrl: `${listening.url}/demo/mcp-auth`,
    registrations,
    refuseRegistrations: (answer) => (refusal = answer),
    close: async () => {
      await auth.close();
      await listening.close();
    },
  };
}

/** What reached the CORS-less servers, counted on arrival. */
export interface AuthArrival {
  method: string;
  path: string;
  authorization: boolean;
}

/**
 * The demo receiver (at /mcp) and its authorization server (at /as) on a loopback port of their own, with every
 * CORS header taken off: as most authorization servers are, a page on another origin can reach them only
 * through a relay.
 */
export async function startCorslessDemoAuth(): Promise<
  Listening & { receiverUrl: string; arrivals: AuthArrival[] }
> {
  const auth = createDemoAuth({ receiverPath: '/mcp', issuerPath: '/as' });
  const arrivals: AuthArrival[] = [];
  const app = express();
  app.use((req, res, next) => {
    arrivals.push({
      method: req.method,
      path: req.path,
      authorization: req.get('authorization') !== undefined,
    });
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name: string, value: number | string | readonly string[]) =>
      /^access-control-/i.test(name) ? res : setHeader(name, value);
    next();
  });
  app.use('/mcp', auth.receiver);
  app.use('/as', auth.authorizationServer);
  app.use(auth.wellKnown);
  const listening = await listenOnLoopback(app, 0);
  return {
    ...listening,
    receiverUrl: `${listening.url}/mcp`,
    arrivals,
    close: async () => {
      await auth.close();
      await listening.close();
    },
  };
}

/**
 * What a person does in the popup: opens the authorization URL, clicks Allow on the consent page, and the
 * browser follows the redirect to the callback, whose query is returned.
 */
export async function consent(view: AuthView, decision: 'allow' | 'deny' = 'allow'): Promise<AuthCallback> {
  if (!view.authorizationUrl) throw new Error(`no authorization URL (status ${view.status}: ${view.error})`);
  const page = await fetch(view.authorizationUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize answered ${page.status}: ${html}`);
  const id = /name="id" value="([^"]+)"/.exec(html)?.[1];
  const action = /action="([^"]+)"/.exec(html)?.[1];
  if (!id || !action) throw new Error('no consent form');
  const answer = await fetch(new URL(action, view.authorizationUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id, decision }).toString(),
    redirect: 'manual',
  });
  const location = answer.headers.get('location');
  if (!location) throw new Error(`consent answered ${answer.status} without a redirect`);
  const query = new URL(location).searchParams;
  return {
    state: query.get('state') ?? '',
    code: query.get('code') ?? undefined,
    iss: query.get('iss') ?? undefined,
    error: query.get('error') ?? undefined,
  };
}
