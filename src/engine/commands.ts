import { classifyError, type ClassifiedError } from '../mcp';
import type { Command, Replies } from './messages';

/**
 * The engine's one dispatch of the page's commands: a table with one handler per command type, each typed to
 * give exactly its command's reply. Adding a command means its message type (messages.ts: `Command`, `Replies`)
 * and its handler in the part of the table of its concern; the compiler refuses a table that misses one.
 */

export type CommandType = Command['type'];
export type CommandOf<K extends CommandType> = Extract<Command, { type: K }>;
export type Handler<K extends CommandType> = (command: CommandOf<K>) => Promise<Replies[K]>;
export type CommandTable = { [K in CommandType]: Handler<K> };

/** Handlers of one concern (host.ts, task-commands.ts, the replay's): write it `satisfies CommandPart`. */
export type CommandPart = Partial<CommandTable>;

type KeysOf<T> = T extends unknown ? keyof T : never;
/** The command types more than one part handles. */
type Twice<P extends readonly object[], Seen = never> = P extends readonly [
  infer Head,
  ...infer Rest extends readonly object[],
]
  ? (keyof Head & Seen) | Twice<Rest, Seen | keyof Head>
  : never;
type Missing<P extends readonly object[]> = Exclude<CommandType, KeysOf<P[number]>>;
type Whole<P extends readonly object[]> = [Twice<P>] extends [never]
  ? [Missing<P>] extends [never]
    ? unknown
    : { 'commands without a handler': Missing<P> }
  : { 'commands with two handlers': Twice<P> };

/** The table from the parts of each concern: every command in exactly one of them, or it does not compile. */
export function commandTable<const P extends readonly CommandPart[]>(...parts: P & Whole<P>): CommandTable {
  return Object.assign({}, ...parts) as CommandTable;
}

/** A command's outcome as it crosses to the page: its reply, or why there is none, classified. */
export type Outcome<K extends CommandType = CommandType> =
  { value: Replies[K] } | { failure: ClassifiedError };

/**
 * Runs the command's handler at once (its effects take the order the commands came in), and never rejects:
 * whatever a handler throws crosses as the classified error the rest of the engine uses.
 */
export async function dispatch<K extends CommandType>(
  table: CommandTable,
  command: CommandOf<K>,
): Promise<Outcome<K>> {
  try {
    const handler = table[command.type as K];
    return { value: await handler(command) };
  } catch (error) {
    return { failure: classifyError(error) };
  }
}
