/**
 * A JSON-RPC message as an observer saw it pass between a client and its server (Taskscope's proxy, or a tap
 * on a client's transport): what the client rules judge and what an observed session is built from.
 */
/** One JSON-RPC message as it passed, in the order it passed. */
export interface SeenMessage {
  /** ms when it passed, on one clock for all messages of a session: every interval the rules measure. */
  at: number;
  /** Wall-clock ms, for the offence's place on a timeline. */
  wallTime: number;
  from: 'client' | 'server';
  message: unknown;
  /** A client message sent over HTTP: its request's headers, names lower-case. */
  headers?: Readonly<Record<string, string>>;
  /** A server message: the HTTP status and headers of the answer that carried it. */
  httpStatus?: number;
  responseHeaders?: Readonly<Record<string, string>>;
  /** The Mcp-Session-Id of the exchange that carried it (the request's, or the initialize answer's). */
  sessionId?: string;
  /** Messages carried by one HTTP exchange (a POST and its answer, a GET stream) share this number. */
  exchange?: number;
}
