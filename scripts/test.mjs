// `npm test`: every check, phase by phase, stopping at the first group that fails, then each phase's seconds, so
// slow growth shows on every run. Each phase is an npm script, so it can also be run alone. Phases in one group
// run side by side: typecheck, lint and pack time nothing (pack mostly packs and installs), unlike the test
// phases after them, which each have the machine to themselves.
import { spawn } from 'node:child_process';

const groups = [
  [
    ['typecheck', 'typecheck'],
    ['lint', 'lint'],
    ['pack', 'test:pack'],
  ],
  [['unit', 'test:unit']],
  [['integration', 'test:integration']],
  [['e2e', 'test:e2e']],
];

/** Runs one npm script; a phase beside others keeps its output until it ends, so outputs do not interleave. */
function phase(name, script, alone) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: alone ? 'inherit' : 'pipe' });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => {
      if (!alone) process.stdout.write(Buffer.concat(output));
      resolve({ name, ok: code === 0, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const started = performance.now();
const done = [];
for (const group of groups) {
  const results = await Promise.all(group.map(([name, script]) => phase(name, script, group.length === 1)));
  done.push(...results);
  if (results.some((result) => !result.ok)) break;
}
const total = (performance.now() - started) / 1000;
console.log('\nnpm test, seconds per phase:');
for (const { name, ok, seconds } of done)
  console.log(`  ${name.padEnd(12)}${seconds.toFixed(1).padStart(7)}${ok ? '' : '  FAILED'}`);
console.log(`  ${'total'.padEnd(12)}${total.toFixed(1).padStart(7)}`);
if (done.some((result) => !result.ok)) process.exit(1);
