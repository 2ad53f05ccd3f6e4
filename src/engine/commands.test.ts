import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeRealTimers } from '../../test/helpers/fake-real-timers';
import { commandTable, type CommandPart, type CommandTable } from './commands';
import { EngineHost } from './host';
import type { Command, FromEngine } from './messages';

const DEMO_TRACE = readFileSync(new URL('../../public/demo-trace.json', import.meta.url), 'utf8');

type Reply = Extract<FromEngine, { type: 'reply' }>;

/** An engine in this process with no history; each command resolves with the reply message as it crossed. */
function engine() {
  const waiting = new Map<number, (reply: Reply) => void>();
  const host: EngineHost = new EngineHost(
    (message) => {
      if (message.type === 'reply') waiting.get(message.id)?.(message);
      else setImmediate(() => host.receive({ type: 'ack' }));
    },
    // Real time that never moves: the replay stays where it starts.
    { history: async () => null, replay: { real: fakeRealTimers().timers } },
  );
  let nextId = 1;
  const send = (command: Command): Promise<Omit<Reply, 'type' | 'id'>> => {
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, ({ type: _type, id: _id, ...outcome }) => resolve(outcome));
      host.receive({ type: 'command', id, command });
    });
  };
  return send;
}

let stop: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('the command table', () => {
  it('answers a live-only command during a replay with its refusal, and live again once it ends', async () => {
    const send = engine();
    stop = () => send({ type: 'disconnect' });
    const replay = await send({ type: 'replay', connectionId: 1, trace: DEMO_TRACE, speed: 1 });
    expect(replay).toMatchObject({ value: { ok: true } });

    const refused = { kind: 'unsupported', message: expect.stringMatching(/replay of a recording/) };
    const tool = { name: 'echo', inputSchema: { type: 'object' }, taskSupport: 'optional' as const };
    expect(await send({ type: 'run', tool, args: {} })).toEqual({ value: { ok: false, error: refused } });
    expect(await send({ type: 'cancel', taskId: 't' })).toEqual({ value: refused });
    expect(await send({ type: 'track', taskId: 't' })).toEqual({ value: false });
    expect(await send({ type: 'trackSeen' })).toEqual({ value: 0 });
    expect(await send({ type: 'clearHistory' })).toEqual({ value: [] });
    expect(await send({ type: 'checkReceiver' })).toEqual({
      value: { ok: false, reason: refused.message },
    });
    // The tools are the recording's.
    const tools = await send({ type: 'listTools' });
    expect(tools).toMatchObject({ value: { tools: expect.arrayContaining([expect.anything()]) } });

    // A disconnect ends the replay: the live handlers answer again, with no connection.
    expect(await send({ type: 'disconnect' })).toEqual({ value: null });
    expect(await send({ type: 'track', taskId: 't' })).toEqual({ value: false });
    expect(await send({ type: 'run', tool, args: {} })).toEqual({
      value: { ok: false, error: { kind: 'other', message: 'Not connected to a receiver.' } },
    });
  });

  it('sends a failure across as a classified error', async () => {
    const send = engine();
    stop = () => send({ type: 'disconnect' });
    expect(await send({ type: 'listTools' })).toEqual({
      failure: { kind: 'other', message: 'Not connected to a receiver.' },
    });
  });

  it('compiles only with each command handled once, each handler giving its own reply', () => {
    const whole = {} as CommandTable;
    const { track: _track, ...withoutTrack } = whole;
    const parts = [
      commandTable(whole),
      // @ts-expect-error track has no handler
      commandTable(withoutTrack),
      commandTable(withoutTrack, { track: async () => true }),
      // @ts-expect-error track has two handlers
      commandTable(whole, { track: async () => true }),
    ];
    expect(parts).toHaveLength(4);
    const part = {
      track: async () => false,
      // @ts-expect-error a number (trackSeen's reply) is not stopResult's
      stopResult: async () => 0,
      // @ts-expect-error listTools' reply is not cancel's
      cancel: async () => ({ tools: [], warnings: [] }),
    } satisfies CommandPart;
    expect(Object.keys(part)).toHaveLength(3);
  });
});
