import type { ClassifiedError } from '../mcp';
import type { CommandTable, Handler } from './commands';
import type { Replies } from './messages';

/**
 * The commands that would reach a receiver, and what the engine answers each instead while it has none to
 * reach: a replay of a recording, or an observed client's session (Taskscope sends nothing in it). Every
 * other command goes to its handler as it does live. One table for both, so neither can let one through.
 */
export function passiveRefusals(error: ClassifiedError) {
  return {
    run: { ok: false, error },
    callPlain: { ok: false, error },
    resend: { ok: false, error },
    cancel: error,
    syncList: error,
    track: false,
    stopResult: false,
    answer: false,
    trackSeen: 0,
    follow: null,
    refetchResult: null,
    pollNow: null,
    clearHistory: [],
    checkReceiver: { ok: false, reason: error.message },
  } satisfies Partial<Replies>;
}

type Refusals = ReturnType<typeof passiveRefusals>;
type Refused = keyof Refusals;

/** The table with each command of `passiveRefusals` refused while `passive()` holds; written in place. */
export function refuseWhilePassive(
  table: CommandTable,
  passive: () => boolean,
  error: ClassifiedError,
): CommandTable {
  const refusals = passiveRefusals(error);
  const refuse = <K extends Refused>(type: K, refusal: Replies[K]) => {
    const live: Handler<K> = table[type];
    const refusing: Handler<K> = async (command) => (passive() ? refusal : live(command));
    // TypeScript reads the table at a generic key as Handler<K>, but does not let one write it there.
    table[type] = refusing as CommandTable[K];
  };
  for (const type of Object.keys(refusals) as Refused[]) refuse(type, refusals[type]);
  return table;
}

/**
 * The live table with what a passive mode (a replay, an observed session) changes: it ends before a connect or a
 * disconnect, it answers `listTools` itself, and each command that would reach a receiver is refused while it
 * runs (`passiveRefusals`).
 */
export function passiveTable(
  live: CommandTable,
  mode: {
    active: () => boolean;
    stop: () => void;
    listTools: CommandTable['listTools'];
    error: ClassifiedError;
  },
): CommandTable {
  const table: CommandTable = {
    ...live,
    connect: (command) => {
      mode.stop();
      return live.connect(command);
    },
    disconnect: (command) => {
      mode.stop();
      return live.disconnect(command);
    },
    listTools: mode.listTools,
  };
  return refuseWhilePassive(table, mode.active, mode.error);
}
