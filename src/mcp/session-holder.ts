import { NoSession } from './errors';
import type { NotificationListener, ServerDescription, ServerRequest } from './session-types';
import type { ReceiverSession } from './session-types';
import type { Era } from './types';

/** What the task operations need of a session. */
export type SessionLike = Pick<
  ReceiverSession,
  'request' | 'onNotification' | 'describeServer' | 'askPerson'
>;

/**
 * The current session of a connection that outlives its sessions: when the receiver loses ours (a restart),
 * the engine opens a new one and swaps it in here, so the tracker and its listeners carry on unchanged.
 * Between sessions a request fails at once with NoSession, sending nothing.
 */
export class SessionHolder implements SessionLike {
  private current: ReceiverSession | null = null;
  private server: ServerDescription | undefined;
  private readonly listeners = new Set<NotificationListener>();
  private detach: (() => void) | undefined;

  get session(): ReceiverSession | null {
    return this.current;
  }

  set(session: ReceiverSession | null): void {
    this.detach?.();
    this.detach = undefined;
    this.current = session;
    if (!session) return;
    this.lastEra = session.era;
    this.server = session.describeServer();
    this.detach = session.onNotification((notification) => {
      for (const listener of this.listeners) listener(notification);
    });
  }

  /** The generation spoken now; the last one's while between sessions. */
  get era(): Era {
    return this.current?.era ?? this.lastEra;
  }
  private lastEra: Era = '2025-11-25';

  askPerson(request: ServerRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (!this.current) return Promise.reject(new NoSession());
    return this.current.askPerson(request, signal);
  }

  request(...args: Parameters<ReceiverSession['request']>): Promise<unknown> {
    if (!this.current) return Promise.reject(new NoSession());
    return this.current.request(...args);
  }

  onNotification(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The live session's description, or the last one's while there is none (capabilities stay known). */
  describeServer(): ServerDescription {
    return (
      this.current?.describeServer() ??
      this.server ?? { name: '(not connected)', version: '?', capabilities: {} }
    );
  }
}
