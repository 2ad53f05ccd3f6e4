// `npm test`: every check, phase by phase, stopping at the first that fails, then each phase's seconds, so slow
// growth shows on every run. A phase is an npm script, so each can also be run alone.
import { spawnSync } from 'node:child_process';

const phases = [
  ['typecheck', 'typecheck'],
  ['lint', 'lint'],
  ['unit', 'test:unit'],
  ['integration', 'test:integration'],
  ['pack', 'test:pack'],
  ['e2e', 'test:e2e'],
];

const times = [];
let failed;
const started = performance.now();
for (const [name, script] of phases) {
  const t0 = performance.now();
  const run = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit' });
  times.push([name, (performance.now() - t0) / 1000]);
  if (run.status !== 0) {
    failed = name;
    break;
  }
}
const total = (performance.now() - started) / 1000;
console.log('\nnpm test, seconds per phase:');
for (const [name, seconds] of times) console.log(`  ${name.padEnd(12)}${seconds.toFixed(1).padStart(7)}`);
console.log(`  ${'total'.padEnd(12)}${total.toFixed(1).padStart(7)}`);
if (failed) {
  console.log(`\n${failed} failed.`);
  process.exit(1);
}
