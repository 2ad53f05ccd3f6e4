import { portFromEnv } from '../../../src/devserver/http-server.js';
import { CASE_DESCRIPTIONS, CASE_NAMES, startHostileReceiver } from './receiver.js';

// `npm run receiver:hostile`: the hostile receiver alone, one misbehaving MCP receiver per case at /<case>/mcp.
// Open Taskscope at /?server=<a case's URL> to watch it cope. Loopback origins only.
const receiver = await startHostileReceiver({ port: portFromEnv('PORT', 3002) });
console.log(`Taskscope hostile receiver on ${receiver.url} (loopback only); one case per path:`);
const width = Math.max(...CASE_NAMES.map((name) => receiver.caseUrl(name).length));
for (const name of CASE_NAMES) {
  console.log(`  ${receiver.caseUrl(name).padEnd(width)}  ${CASE_DESCRIPTIONS[name]}`);
}
const stop = () => void receiver.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
