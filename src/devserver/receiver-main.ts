import express from 'express';
import { createDemoReceiver } from './demo/receiver.js';
import { createDemoReceiver2026 } from './demo-2026/receiver.js';
import { createDemoAuth } from './demo-auth/receiver.js';
import { listenOnLoopback, plainErrors, plainNotFound, portFromEnv } from './http-server.js';
import { allowedHostsFromEnv, plainGuard } from './guard.js';
import { faultsListing } from './demo/faults-listing.js';

// The demo receivers alone, for other MCP clients (or a Taskscope served elsewhere): 2025-11-25 at /mcp
// (POST/GET/DELETE, sessions), 2026-07-28 with the tasks extension at /mcp-2026 (POST only, no sessions).
const app = express();
app.disable('x-powered-by');
const allowedHosts = allowedHostsFromEnv();
const receiverOptions = {
  allowedOrigins: process.env.ALLOWED_ORIGINS?.split(',').filter(Boolean),
  allowedHosts,
  // As most SDK servers without CORS middleware are: reachable from a page only through a relay.
  cors: !process.argv.includes('--no-cors'),
  // --faults=a,b: /mcp breaks those report-card rules (the faults case, demo-faults/; see docs/demo.md).
  faults: process.argv.find((a) => a.startsWith('--faults='))?.slice('--faults='.length),
};
const receiver = createDemoReceiver(receiverOptions);
const receiver2026 = createDemoReceiver2026(receiverOptions);
app.use('/mcp-2026', receiver2026.router);
app.use('/mcp', receiver.router);
// The same tools behind OAuth, with the authorization server at /auth (docs/sign-in.md).
const demoAuth = createDemoAuth({ ...receiverOptions, receiverPath: '/mcp-auth', issuerPath: '/auth' });
app.use('/mcp-auth', demoAuth.receiver);
app.use('/auth', demoAuth.authorizationServer);
app.use(demoAuth.wellKnown);
app.use(plainGuard({ allowedHosts, pages: 'local' }));
app.get('/faults', faultsListing({ receiver: '/mcp', auth: '/mcp-auth' }));
app.use(plainNotFound, plainErrors);
const listening = await listenOnLoopback(app, portFromEnv('PORT', 3001));
console.log(
  `Taskscope demo receiver on ${listening.url}/mcp (2025-11-25) and ${listening.url}/mcp-2026 (2026-07-28, tasks extension); ${listening.url}/mcp-auth behind OAuth (authorization server ${listening.url}/auth)`,
);
const stop = () =>
  void Promise.all([receiver.close(), receiver2026.close(), demoAuth.close()])
    .then(listening.close)
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
