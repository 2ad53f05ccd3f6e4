/**
 * A receiver's question (elicitation, sampling) asked on the terminal, and the reply the engine sends back
 * (the page's inbox answers the same requests through the same `answer` command).
 */
import { createInterface } from 'node:readline/promises';
import type { Command, InboxRequest } from '../../engine/messages';
import { isObject } from '../../mcp';
import { oneLine } from '../../format/control-chars';

type Answer = Extract<Command, { type: 'answer' }>;

/** What is sent when nobody can answer: elicitation declined, anything else refused. */
export function refusal(request: InboxRequest): Pick<Answer, 'outcome' | 'reply'> {
  if (request.method === 'elicitation/create')
    return { outcome: 'declined (no terminal)', reply: { result: { action: 'decline' } } };
  return {
    outcome: 'refused (no terminal)',
    reply: { error: { code: -32603, message: 'taskscope watch has no terminal to ask a person on' } },
  };
}

/** Asks on the terminal; resolves with the reply to send. */
export async function askOnTerminal(
  request: InboxRequest,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
): Promise<Pick<Answer, 'outcome' | 'reply'>> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: true });
  // Lines are read from the interface's own queue: a pasted answer to several prompts is not lost between them.
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (prompt: string): Promise<string> => {
    io.output.write(prompt);
    const next = await lines.next();
    if (next.done) throw new Error('the terminal closed');
    return String(next.value);
  };
  try {
    const params = request.params;
    if (request.method === 'elicitation/create') {
      io.output.write(`\nThe receiver asks: ${oneLine(String(params.message ?? ''))}\n`);
      const schema = isObject(params.requestedSchema) ? params.requestedSchema : {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      // Only these words answer it: a value typed here by mistake is asked again, never taken as "yes".
      const action = await askUntil(
        ask,
        io.output,
        'Answer? [Y]es / [n]o (decline) / [c]ancel: ',
        'Please answer y (yes), n (no: decline) or c (cancel).',
        (text) => {
          // The [Y] in the prompt: an empty line accepts.
          const action = text === '' ? 'accept' : ACTIONS.get(text.toLowerCase());
          return action && { value: action };
        },
      );
      if (action === 'decline') return { outcome: 'declined', reply: { result: { action: 'decline' } } };
      if (action === 'cancel') return { outcome: 'cancelled', reply: { result: { action: 'cancel' } } };
      const content: Record<string, unknown> = {};
      for (const [name, raw] of Object.entries(properties).slice(0, 50)) {
        const value = await askField(isObject(raw) ? raw : {}, name, ask, io.output);
        if (value !== undefined) content[name] = value;
      }
      return { outcome: 'accepted', reply: { result: { action: 'accept', content } } };
    }
    if (request.method === 'sampling/createMessage') {
      const messages = Array.isArray(params.messages) ? params.messages : [];
      io.output.write('\nThe receiver asks for a model reply to:\n');
      for (const message of messages.slice(-5)) {
        const m = isObject(message) ? message : {};
        const content = isObject(m.content) ? m.content : {};
        io.output.write(
          `  ${oneLine(String(m.role ?? '?'))}: ${oneLine(String(content.text ?? '(not text)')).slice(0, 500)}\n`,
        );
      }
      const text = await ask('Your reply (empty refuses): ');
      if (text.trim() === '')
        return {
          outcome: 'refused',
          reply: { error: { code: -1, message: 'The person refused to answer' } },
        };
      return {
        outcome: 'answered',
        reply: {
          result: {
            role: 'assistant',
            content: { type: 'text', text },
            model: 'a person (taskscope watch)',
            stopReason: 'endTurn',
          },
        },
      };
    }
    return refusal(request);
  } finally {
    rl.close();
  }
}

type Ask = (prompt: string) => Promise<string>;

const ACTIONS = new Map<string, 'accept' | 'decline' | 'cancel'>([
  ['y', 'accept'],
  ['yes', 'accept'],
  ['n', 'decline'],
  ['no', 'decline'],
  ['c', 'cancel'],
  ['cancel', 'cancel'],
]);
const YES_NO = new Map<string, boolean>([
  ['y', true],
  ['yes', true],
  ['true', true],
  ['n', false],
  ['no', false],
  ['false', false],
]);

/** Asks until `read` takes the (trimmed) line; a line it does not take gets `hint` and the question again. */
async function askUntil<T>(
  ask: Ask,
  output: NodeJS.WritableStream,
  prompt: string,
  hint: string,
  read: (text: string) => { value: T } | undefined,
): Promise<T> {
  for (;;) {
    const taken = read((await ask(prompt)).trim());
    if (taken) return taken.value;
    output.write(`  ${hint}\n`);
  }
}

/**
 * One field of an elicitation's schema, on its own line: a boolean takes yes or no, a number a number, an enum
 * one of its values (anything else is asked again); an empty line takes the default, or leaves the field out.
 */
function askField(
  field: Record<string, unknown>,
  name: string,
  ask: Ask,
  output: NodeJS.WritableStream,
): Promise<unknown> {
  const type = typeof field.type === 'string' ? field.type : 'string';
  const label = oneLine(String(field.title ?? field.description ?? name)).slice(0, 200);
  const options = Array.isArray(field.enum) ? field.enum.slice(0, 50) : undefined;
  const listed = options
    ? oneLine(options.map(String).join(' / ')).slice(0, 500)
    : type === 'boolean'
      ? 'y / n'
      : undefined;
  const fallback = field.default !== undefined ? ` [${oneLine(String(field.default)).slice(0, 200)}]` : '';
  const prompt = `  ${label}${listed ? ` (${listed})` : ''}${fallback}: `;
  const read = (text: string): { value: unknown } | undefined => {
    if (text === '') return { value: field.default };
    if (options) {
      const chosen = options.find((option) => String(option) === text);
      return chosen === undefined ? undefined : { value: chosen };
    }
    if (type === 'boolean') {
      const yes = YES_NO.get(text.toLowerCase());
      return yes === undefined ? undefined : { value: yes };
    }
    if (type === 'number' || type === 'integer') {
      const number = Number(text);
      const fits = type === 'integer' ? Number.isSafeInteger(number) : Number.isFinite(number);
      return fits ? { value: number } : undefined;
    }
    return { value: text };
  };
  const hint = options
    ? `Please answer one of: ${listed}.`
    : type === 'boolean'
      ? 'Please answer y (yes) or n (no).'
      : `Please answer ${type === 'integer' ? 'a whole number' : 'a number'}.`;
  return askUntil(ask, output, prompt, hint, read);
}
