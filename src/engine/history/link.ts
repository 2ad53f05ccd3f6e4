import type { Connection } from '../connection/connection';
import { historyKey, type HistoryDb } from '.';
import { HistoryRecorder } from './recorder';
import type { ConnectionNews, InboxEvent, InboxRequest } from '../messages';
import type { Outbox } from '../outbox';

/**
 * Between a connection and what the browser keeps of its receiver (IndexedDB, through HistoryDb): restoring it
 * on connect, recording what happens after ("Preserve log"), and Clear. The database opens once, on first use.
 */
export class HistoryLink {
  /** Devtools' "Preserve log": keep and restore; on by default. */
  preserve = true;
  private db: Promise<HistoryDb | null> | undefined;

  constructor(
    private readonly openDb: () => Promise<HistoryDb | null>,
    private readonly outbox: Outbox,
    private readonly news: (conn: Connection, news: ConnectionNews) => void,
  ) {}

  private database(): Promise<HistoryDb | null> {
    this.db ??= this.openDb();
    return this.db;
  }

  private record(conn: Connection, db: HistoryDb): HistoryRecorder {
    return new HistoryRecorder(
      db,
      historyKey(conn.command.url),
      conn.tracker,
      conn.queryClient,
      conn.id,
      (news) => this.news(conn, { history: news }),
    );
  }

  /** Puts this receiver's history back: tasks into the tracker, traffic and answered requests to the page. */
  async restore(conn: Connection): Promise<void> {
    const db = await this.database();
    if (!db) {
      this.news(conn, {
        history: {
          state: 'unavailable',
          message:
            'This browser gives Taskscope no IndexedDB (private mode?): history lasts only as long as the page.',
        },
      });
      return;
    }
    const key = historyKey(conn.command.url);
    // Before the key was blanked, a URL with a secret in it was its own key: what was kept under it goes.
    if (key !== conn.command.url) await db.forgetReceiver(conn.command.url).catch(() => undefined);
    const loaded = await db.load(key);
    // Preserve log turned off (or on, with its own recorder) while this was loading: that choice stands.
    if (conn.closed || !this.preserve || conn.history) return;
    conn.tracker.restore(loaded.tasks);
    // Restored traffic is renumbered after what this engine has numbered already (earlier connections, this
    // one's first messages), and this connection's tap goes on from it: no two events of the page share a seq.
    const seqs = conn.tap.counter;
    const base = seqs.last;
    let lastSeq = 0;
    for (const event of loaded.traffic) {
      this.outbox.addTraffic({
        ...event,
        connectionId: conn.id,
        seq: base + event.seq,
        requestSeq: event.requestSeq === undefined ? undefined : base + event.requestSeq,
      });
      lastSeq = Math.max(lastSeq, event.seq);
    }
    seqs.last = Math.max(seqs.last, base + lastSeq);
    const inbox = restoredInbox(loaded.inbox, conn.id);
    for (const event of inbox.settled) this.outbox.addInbox(event);
    conn.waitingFromHistory = inbox.waiting;
    conn.history = this.record(conn, db);
    conn.history.skipRestored();
    this.news(conn, {
      history: { state: 'on', restored: loaded.tasks.length, dropped: loaded.droppedTasks || undefined },
    });
  }

  /** On keeps what is observed from now (and what is shown); off forgets what was kept. */
  async setPreserve(conn: Connection | null, on: boolean): Promise<void> {
    this.preserve = on;
    if (!conn) return;
    const db = await this.database();
    if (!db) return;
    if (on && !conn.history) {
      conn.history = this.record(conn, db);
      conn.history.tasksChanged();
      for (const taskId of conn.tracker.store.getState().order) {
        conn.history.snapshotChanged(taskId);
        conn.history.resultChanged(taskId);
      }
      this.news(conn, { history: { state: 'on' } });
    } else if (!on && conn.history) {
      const recorder = conn.history;
      conn.history = undefined;
      await recorder.dispose();
      await db.clear(historyKey(conn.command.url), []);
      this.news(conn, { history: { state: 'off' } });
    }
  }

  /** Clear: ended tasks, traffic and answered requests go, from the page and from history; live tasks stay. */
  async clear(conn: Connection): Promise<string[]> {
    const forgotten = conn.tracker.forgetEnded();
    const live = conn.tracker.store.getState().order;
    if (conn.history) await conn.history.clear(live);
    else await (await this.database())?.clear(historyKey(conn.command.url), live);
    return forgotten;
  }
}

/**
 * The inbox from history: answered requests for the record, and the ones still waiting when the page went
 * away (answerable only if their session is taken up again). Keys and connection ids are made new: the ones
 * they had came from an earlier page and could meet this page's.
 */
function restoredInbox(
  events: readonly InboxEvent[],
  connectionId: number,
): { settled: InboxEvent[]; waiting: InboxRequest[] } {
  const ends = new Map<string, Extract<InboxEvent, { kind: 'settled' }>>();
  for (const event of events) if (event.kind === 'settled') ends.set(event.key, event);
  const settled: InboxEvent[] = [];
  const waiting: InboxRequest[] = [];
  for (const event of events) {
    if (event.kind !== 'asked') continue;
    const key = `history:${event.request.receivedAt}:${event.request.key}`;
    // Like restored traffic, it belongs to this connection now: the one it was asked on is an earlier page's.
    const request = { ...event.request, key, connectionId };
    const end = ends.get(event.request.key);
    if (end) settled.push({ kind: 'asked', request }, { ...end, key });
    else waiting.push(request);
  }
  return { settled, waiting };
}
