/**
 * Records public/demo-trace.json (npm run trace:demo): the engine runs a short, varied task flow against the
 * demo receiver on loopback, and the page's own export builder writes the trace the empty task list links to.
 */
import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { recordDemoFlow } from '../test/helpers/record-trace';
import { parseTrace } from '../src/engine/trace/schema';

const trace = await recordDemoFlow();
const checked = parseTrace(JSON.parse(JSON.stringify(trace)));
if (!checked.ok) throw new Error(`the recorded trace does not validate:\n${checked.errors.join('\n')}`);
const file = new URL('../public/demo-trace.json', import.meta.url);
// Formatted as the repository's other files are (npm run lint checks it), so a new recording diffs readably.
const text = await format(JSON.stringify(trace), { ...((await resolveConfig(file)) ?? {}), parser: 'json' });
writeFileSync(file, text);
const seconds = ((trace.endedAt - trace.startedAt) / 1000).toFixed(1);
console.log(
  `wrote public/demo-trace.json: ${trace.tasks.length} tasks, ${trace.traffic.length} messages, ${seconds} s, ${Math.round(text.length / 1024)} KB`,
);
for (const task of trace.tasks) console.log(`  ${task.tool ?? '?'}: ${task.status} (${task.lifecycle})`);
