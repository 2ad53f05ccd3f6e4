// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../tracker/queries';
import { useConnection } from '../state/connection-store';
import { useLayout } from '../state/layout-store';
import { reactRoot } from '../../test/helpers/react-root';
import { ReceiverSection } from './ReceiverSection';

const view = reactRoot();
beforeEach(() => {
  useLayout.setState({ receiverOpen: false });
  useConnection.setState({
    id: 1,
    url: '/demo/mcp',
    headers: {},
    status: 'connected',
    server: {
      name: 'Taskscope demo receiver',
      version: '1.2.3',
      protocolVersion: '2025-11-25',
      capabilities: { tasks: {} },
    },
  });
});

describe('ReceiverSection', () => {
  it('is one line once connected (name, version, protocol), and unfolds into the card on demand', () => {
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <ReceiverSection />
        </QueryClientProvider>,
      ),
    );
    const toggle = view.container.querySelector<HTMLButtonElement>('[data-testid="receiver-toggle"]')!;
    const details = view.container.querySelector<HTMLElement>('#receiver-details')!;
    expect(view.container.querySelector('[data-testid="server-name"]')?.textContent).toBe(
      'Taskscope demo receiver',
    );
    expect(toggle.textContent).toContain('v1.2.3 · 2025-11-25');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(details.hidden).toBe(true);
    act(() => toggle.click());
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(details.hidden).toBe(false);
    expect(details.querySelector('[data-testid="server-card"]')).not.toBeNull();
  });
});
