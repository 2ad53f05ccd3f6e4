import express from 'express';
import { createDemoReceiver } from './demo-receiver.js';
import {
  allowedHostsFromEnv,
  hostAllowList,
  listenOnLoopback,
  plainErrors,
  plainNotFound,
  portFromEnv,
} from './http-server.js';

// The demo receiver alone, for other MCP clients (or a Taskscope served elsewhere): POST/GET/DELETE /mcp.
const app = express();
app.disable('x-powered-by');
const allowedHosts = allowedHostsFromEnv();
const receiver = createDemoReceiver({
  allowedOrigins: process.env.ALLOWED_ORIGINS?.split(',').filter(Boolean),
  allowedHosts,
  // As most SDK servers without CORS middleware are: reachable from a page only through a relay.
  cors: !process.argv.includes('--no-cors'),
});
app.use('/mcp', receiver.router);
app.use(hostAllowList(allowedHosts), plainNotFound, plainErrors);
const listening = await listenOnLoopback(app, portFromEnv('PORT', 3001));
console.log(`Taskscope demo receiver on ${listening.url}/mcp`);
const stop = () =>
  void receiver
    .close()
    .then(listening.close)
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
