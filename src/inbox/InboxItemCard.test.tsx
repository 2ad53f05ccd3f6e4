// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { InboxItemCard } from './InboxItemCard';
import type { InboxItem } from './inbox-store';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const base: InboxItem = {
  key: '1:1:1',
  connectionId: 1,
  requestId: 1,
  method: 'elicitation/create',
  params: { message: 'Which colour?' },
  relatedTaskId: 'task-1',
  receivedAt: new Date(2026, 0, 2, 9, 5, 7).getTime(),
  state: 'answered',
  outcome: 'accept',
};

function render(item: InboxItem) {
  const container = document.createElement('div');
  const root = createRoot(container);
  act(() => root.render(<InboxItemCard item={item} />));
  return { container, done: () => act(() => root.unmount()) };
}

describe('an answered inbox item', () => {
  it('lists the values accepted, each as sent, and the time in the one clock format', () => {
    const { container, done } = render({
      ...base,
      sent: {
        kind: 'elicitation',
        action: 'accept',
        content: { answer: 'teal', confident: true, count: 3 },
        at: new Date(2026, 0, 2, 9, 5, 9).getTime(),
      },
    });
    const field = (name: string) => container.querySelector(`[data-field="${name}"]`)?.textContent;
    expect(field('answer')).toBe('teal');
    expect(field('confident')).toBe('true');
    expect(field('count')).toBe('3');
    expect(container.querySelector('[data-testid="inbox-received"]')?.textContent).toBe('09:05:07');
    expect(container.querySelector('[data-testid="inbox-sent"]')?.textContent).toContain(
      'Accepted at 09:05:09',
    );
    done();
  });

  it('shows the sampling reply and its model', () => {
    const { container, done } = render({
      ...base,
      method: 'sampling/createMessage',
      outcome: 'replied as a-person',
      sent: { kind: 'sampling', text: 'forty-two', model: 'a-person', at: base.receivedAt },
    });
    const sent = container.querySelector('[data-testid="inbox-sent"]')?.textContent ?? '';
    expect(sent).toContain('forty-two');
    expect(sent).toContain('a-person');
    done();
  });

  it('says plainly when the values are not known (an answer recorded without them)', () => {
    const { container, done } = render(base);
    expect(container.querySelector('[data-testid="inbox-sent"]')).toBeNull();
    expect(container.querySelector('[data-testid="inbox-sent-unknown"]')?.textContent).toContain(
      'before the values sent were recorded',
    );
    done();
  });
});
