import { isObject } from './json';
import type { SessionLike } from './session-holder';

/** Ids asked for on one listen stream at most; the rest are polled only. */
const MAX_LISTENED = 100;
/** Live tasks followed for pushes and input at most. */
const MAX_FOLLOWED = 5000;
/** A stream that lived less than this before it closed counts as closing at once: the next waits longer. */
const STABLE_MS = 10_000;
/** Changes to the set of live tasks are gathered this long before the stream is opened again. */
const SETTLE_MS = 300;
const RETRY_FLOOR_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * Pushes for 2026-07-28 tasks: one `subscriptions/listen` stream naming the live tasks, opened again (after a
 * short pause) when that set changes, since a stream's filter is fixed when it opens. Its acknowledgement says
 * which ids the receiver honours; one that honours none gets no more streams (polling alone then, as the
 * spec allows and server SDK 2.4 does). Pushes never replace polls: the tracker polls on at the interval.
 */
export class TaskListen {
  private readonly live = new Set<string>();
  private current: { ids: string[]; controller: AbortController } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retryMs = RETRY_FLOOR_MS;
  private refused = false;
  private unhonoured = 0;
  private disposed = false;
  private readonly stopAck: () => void;
  /** Called once when the receiver honours none of the task ids: say that there are no pushes. */
  onRefused?: (note: string) => void;

  constructor(private readonly session: SessionLike) {
    this.stopAck = session.onNotification((notification) => {
      if (notification.method !== 'notifications/subscriptions/acknowledged' || !this.current) return;
      const filter = isObject(notification.params?.notifications) ? notification.params.notifications : {};
      const honoured = Array.isArray(filter.taskIds) ? filter.taskIds : [];
      if (honoured.some((id) => this.current?.ids.includes(id as string))) {
        this.unhonoured = 0;
        return;
      }
      // Once may be tasks it no longer has (after a restart); twice running, it pushes no tasks at all.
      if (++this.unhonoured >= 2) this.refuse();
    });
  }

  /** True for a task followed here (created or polled, not ended). */
  has(taskId: string): boolean {
    return this.live.has(taskId);
  }

  watch(taskId: string): void {
    if (this.disposed || this.live.has(taskId)) return;
    this.live.add(taskId);
    // Past this many, the oldest stop being followed here; they are polled as ever.
    if (this.live.size > MAX_FOLLOWED) this.live.delete(this.live.values().next().value as string);
    if (!this.refused) this.schedule(SETTLE_MS);
  }

  unwatch(taskId: string): void {
    if (!this.live.delete(taskId)) return;
    this.schedule(SETTLE_MS);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.current?.controller.abort();
    this.current = undefined;
    this.stopAck();
  }

  private refuse(): void {
    this.refused = true;
    this.current?.controller.abort();
    this.current = undefined;
    clearTimeout(this.timer);
    this.onRefused?.(
      'The receiver pushes no task updates (subscriptions/listen honoured none of the task ids): polling only.',
    );
  }

  private schedule(ms: number): void {
    if (this.refused || this.disposed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), ms);
  }

  private open(): void {
    this.current?.controller.abort();
    this.current = undefined;
    if (this.refused || this.disposed || this.live.size === 0) return;
    const ids = [...this.live].slice(-MAX_LISTENED);
    const controller = new AbortController();
    const stream = { ids, controller };
    this.current = stream;
    const openedAt = Date.now();
    // Closed by the receiver (gracefully or not): again while tasks are live, later each time it closes fast.
    const again = () => {
      this.retryMs =
        Date.now() - openedAt >= STABLE_MS ? RETRY_FLOOR_MS : Math.min(RETRY_MAX_MS, this.retryMs * 2);
      this.schedule(this.retryMs);
    };
    this.session
      .request('subscriptions/listen', { notifications: { taskIds: ids } }, { signal: controller.signal })
      .then(
        () => {
          if (this.current === stream) again();
        },
        (error: unknown) => {
          if (this.current !== stream || controller.signal.aborted) return;
          // -32601: no listen at all; anything else may pass.
          if ((error as { code?: unknown }).code === -32601) return this.refuse();
          again();
        },
      );
  }
}
