// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { useConnection } from '../state/connection-store';
import { createQueryClient } from '../tracker/queries';
import { formatClock } from '../format/time';
import { ConnectionBar } from './ConnectionBar';
import { ConnectionProblem } from './ConnectionProblem';
import { reactRoot } from '../../test/helpers/react-root';

const view = reactRoot();

describe('an unreachable receiver', () => {
  it('says since when in the one 24-hour clock form, on the card and in the status’s title', () => {
    const since = new Date(2026, 11, 7, 15, 4, 5, 678).getTime();
    useConnection.setState({
      id: 2,
      url: 'http://127.0.0.1:9/mcp',
      status: 'unreachable',
      since,
      error: { kind: 'cors-or-network', message: 'The receiver did not answer.' },
    });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <ConnectionBar />
          <ConnectionProblem />
        </QueryClientProvider>,
      ),
    );
    const alert = view.container.querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain('http://127.0.0.1:9/mcp · since 15:04:05');
    expect(view.container.querySelector('[data-testid="connection-status"]')?.getAttribute('title')).toBe(
      'The receiver did not answer. (since 15:04:05)',
    );
  });
});

describe('formatClock', () => {
  it('is 24-hour, zero-padded, to the second or to the millisecond, in local time', () => {
    expect(formatClock(new Date(2026, 0, 2, 9, 5, 7, 4).getTime())).toBe('09:05:07');
    expect(formatClock(new Date(2026, 0, 2, 21, 5, 7, 4).getTime(), { millis: true })).toBe('21:05:07.004');
    expect(formatClock(Number.NaN)).toBe('—');
  });
});
