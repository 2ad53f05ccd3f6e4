import { AuthClient, capMap } from '../../mcp';
import type { ConnectionNews } from '../messages';
import type { Connection } from './connection';

/** A tab signs in to a handful of receivers; the oldest sign-in goes past this many. */
const MAX_SIGN_INS = 16;

/**
 * The tab's sign-ins, one per receiver URL, in the Worker's memory only: a reconnect to the same receiver keeps
 * its tokens. Each connection's fetch puts the token on; the flow's news and exchanges go to that connection.
 */
export class SignIns {
  private readonly byUrl = new Map<string, AuthClient>();

  /** The fetch for the connection's requests: `direct` (or through the relay) with the sign-in around it. */
  fetchFor(conn: Connection, direct: typeof fetch, news: (news: ConnectionNews) => void): typeof fetch {
    const wanted = conn.command.auth;
    if (!wanted) return direct;
    const url = conn.command.url;
    let auth = this.byUrl.get(url);
    if (!auth?.fits(wanted.redirectUri, wanted.choice)) {
      auth = new AuthClient({
        receiverUrl: url,
        redirectUri: wanted.redirectUri,
        choice: wanted.choice,
        fetch: direct,
      });
      this.byUrl.delete(url);
      this.byUrl.set(url, auth);
      capMap(this.byUrl, MAX_SIGN_INS);
    }
    const signIn = auth;
    signIn.useFetch(direct);
    conn.rememberSignIn = wanted.remember === true;
    signIn.onChange = (view) =>
      news({
        auth: view,
        ...(conn.rememberSignIn ? { rememberedSignIn: signIn.remembered() ?? null } : {}),
      });
    signIn.onExchange = (exchange) =>
      conn.tap.record(
        'out',
        {
          method: 'oauth',
          request: { method: exchange.method, url: exchange.url, body: exchange.requestBody },
          response: {
            status: exchange.status,
            error: exchange.error,
            body: exchange.responseBody,
            ms: exchange.ms,
          },
        },
        { kind: 'auth', httpStatus: exchange.status },
      );
    conn.auth = signIn;
    if (wanted.remembered && !signIn.signedIn) signIn.restore(wanted.remembered);
    if (signIn.view().status !== 'none') news({ auth: signIn.view() });
    return signIn.wrap(direct);
  }
}
