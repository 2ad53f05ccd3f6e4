/**
 * The 2026-07-28 demo receiver over stdio (server 2.4's serveStdio: the opening exchange picks the era), for
 * `taskscope --stdio -- npx tsx src/devserver/demo-2026/stdio-main.ts` and the stdio bridge's tests.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { demoServerFactory2026 } from './server.js';
import { DemoTaskStore2026 } from './task-store.js';

console.error('Taskscope demo receiver (2026-07-28) on stdio');
serveStdio(demoServerFactory2026(new DemoTaskStore2026()));
