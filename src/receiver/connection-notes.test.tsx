// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { classifyError } from '../mcp/classify';
import { HttpStatusError } from '../mcp/errors';
import type { ClassifiedError } from '../mcp';
import { useConnection, type ConnectionState } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { ConnectionProblem } from './ConnectionProblem';
import { ServerCard } from './ServerCard';
import { ConnectionBar } from './ConnectionBar';
import { reactRoot } from '../../test/helpers/react-root';

/**
 * What the page says of a connection that failed or went away, drawn from the connection's record: each kind of
 * refusal has its own title and next step, and only a CORS refusal offers the relay. The engine's side (which
 * error a wrong path, a web page or a killed receiver gives) is test/integration/connection-refusals.test.ts
 * and test/integration/recovery.test.ts; the CORS diagnosis, which needs a page's origin, is
 * test/e2e/live.spec.ts's relay test.
 */

const URL_ = 'http://127.0.0.1:4000/nope/mcp';
const view = reactRoot();
const $ = (testId: string) => view.container.querySelector<HTMLElement>(`[data-testid="${testId}"]`);

function show(state: Partial<ConnectionState>, component = <ConnectionProblem />) {
  act(() => useConnection.setState({ id: 1, url: URL_, headers: {}, ...state }));
  act(() => view.root.render(component));
  return view.container.textContent ?? '';
}

beforeEach(() => {
  useReplay.setState({ connectionId: undefined });
  useConnection.setState(
    { id: 0, url: '', headers: {}, status: 'idle' } satisfies Partial<ConnectionState> as ConnectionState,
    true,
  );
});

describe('the connection problem pane', () => {
  it('a wrong path: "No MCP endpoint" with the address, the URL to check, and no relay offered', () => {
    const error = classifyError(new HttpStatusError(404, '<html>Cannot POST</html>'), {
      method: 'initialize',
      url: URL_,
    });
    const text = show({ status: 'error', error });
    expect($('connection-error')?.textContent).toMatch(/No MCP endpoint/);
    expect($('connection-error')?.textContent).toContain('/nope/mcp');
    expect(text).toContain('Could not connect');
    expect(text).toContain('Check the URL in the header');
    expect($('relay-offer')).toBeNull();
  });

  it('a web page: said to be one, without its text, and no relay offered', () => {
    const error = classifyError(
      Object.assign(new Error('Unexpected content type: text/html; charset=utf-8'), { code: -1 }),
      { method: 'initialize', url: URL_ },
    );
    show({ status: 'error', error });
    expect($('connection-error')?.textContent).toContain('web page');
    expect($('relay-offer')).toBeNull();
  });

  it('a receiver that refuses the origin by CORS: said so, and the relay offered', () => {
    const error: ClassifiedError = {
      kind: 'cors-or-network',
      diagnosis: 'cors',
      message: `The receiver at ${URL_} answers, but does not allow this page's origin by CORS.`,
    };
    const text = show({ status: 'error', error });
    expect(text).toContain("does not allow this page's origin (CORS)");
    expect($('connection-error')?.textContent).toContain('CORS');
    expect($('relay-offer')).not.toBeNull();
    // Already through the relay: no offer, the way back instead.
    const relayed = show({ status: 'error', error, viaRelay: true });
    expect($('relay-offer')).toBeNull();
    expect(relayed).toContain('Through the local relay');
  });

  it('a receiver that went away: unreachable, not CORS, and tried again by itself', () => {
    const error = classifyError(new TypeError('Failed to fetch'), { method: 'tasks/get' });
    const text = show({ status: 'unreachable', error, since: Date.now(), retryAt: Date.now() + 5000 });
    expect(text).toContain('Receiver unreachable');
    expect($('connection-error')?.textContent).toContain('not CORS');
    expect(text).toContain('tries again by itself');
    expect($('problem-retry')?.textContent).toMatch(/Next try in \d s/);
    expect($('relay-offer')).toBeNull();
    // The header says so too, and when the engine tries next.
    show({ status: 'unreachable', error, retryAt: Date.now() + 5000 }, <ConnectionBar />);
    expect($('connection-status')?.textContent).toMatch(/^Unreachable.*retrying in \d s/);
    show({ status: 'connected', error: undefined, retryAt: undefined }, <ConnectionBar />);
    expect($('connection-status')?.textContent).toBe('Connected');
  });
});

describe('the receiver card’s session note', () => {
  const server = { name: 'demo', version: '1', capabilities: {} };

  it('says when the connection recovered, or that a reload took the session up again, and nothing otherwise', () => {
    show({ status: 'connected', server, recoveredAt: Date.UTC(2026, 0, 1, 9, 30, 15) }, <ServerCard />);
    expect($('session-note')?.textContent).toMatch(/^Recovered at \d\d:\d\d:\d\d/);
    show({ status: 'connected', server, recoveredAt: undefined, resumed: true }, <ServerCard />);
    expect($('session-note')?.textContent).toContain('Session resumed');
    show({ status: 'connected', server, resumed: false }, <ServerCard />);
    expect($('session-note')).toBeNull();
    // Not while the receiver is away.
    show({ status: 'unreachable', server, recoveredAt: Date.now() }, <ServerCard />);
    expect($('session-note')).toBeNull();
  });
});
