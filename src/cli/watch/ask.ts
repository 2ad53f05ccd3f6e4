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
      const go = (await ask('Answer? [Y]es / [n]o (decline) / [c]ancel: ')).trim().toLowerCase();
      if (go.startsWith('n')) return { outcome: 'declined', reply: { result: { action: 'decline' } } };
      if (go.startsWith('c')) return { outcome: 'cancelled', reply: { result: { action: 'cancel' } } };
      const content: Record<string, unknown> = {};
      for (const [name, raw] of Object.entries(properties).slice(0, 50)) {
        const field = isObject(raw) ? raw : {};
        const type = typeof field.type === 'string' ? field.type : 'string';
        const label = oneLine(String(field.title ?? field.description ?? name)).slice(0, 200);
        const options = Array.isArray(field.enum) ? ` (${field.enum.map(String).join(' / ')})` : '';
        const fallback = field.default !== undefined ? ` [${String(field.default)}]` : '';
        const text = (await ask(`  ${label}${options}${fallback}: `)).trim();
        if (text === '' && field.default !== undefined) content[name] = field.default;
        else if (text === '') continue;
        else if (type === 'number' || type === 'integer') content[name] = Number(text);
        else if (type === 'boolean') content[name] = /^(y|yes|true|1)$/i.test(text);
        else content[name] = text;
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
