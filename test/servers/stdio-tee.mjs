// `node stdio-tee.mjs DIR -- command args…`: runs the command with its stdin and stdout passed through, and
// keeps a copy of each: DIR/in (every byte it was given) and DIR/out (every byte it wrote). stderr is shared.
// It ends its command's stdin when its own ends, and exits with the command's code (128+N for signal N).
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';

const [dir, separator, command, ...args] = process.argv.slice(2);
if (!dir || separator !== '--' || !command) {
  process.stderr.write('usage: node stdio-tee.mjs DIR -- command args…\n');
  process.exit(2);
}
const inFile = path.join(dir, 'in');
const outFile = path.join(dir, 'out');
writeFileSync(inFile, '');
writeFileSync(outFile, '');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.on('data', (chunk) => {
  appendFileSync(inFile, chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.stdin.on('error', () => undefined);
child.stdout.on('data', (chunk) => {
  appendFileSync(outFile, chunk);
  process.stdout.write(chunk);
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('close', (code, signal) => {
  process.exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
  process.stdin.destroy();
});
