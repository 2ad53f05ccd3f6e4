// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { InboxRequest } from '../engine/messages';
import { reactRoot } from '../../test/helpers/react-root';
import { useInbox } from './inbox-store';
import { InboxView } from './InboxView';
import { answerElicitation } from './actions';

vi.mock('./actions', () => ({
  answerElicitation: vi.fn(),
  answerSampling: vi.fn(),
}));

/**
 * The inbox drawn from the engine's inbox events for the hostile receiver's floods
 * (test/integration/hostile-engine.test.ts holds that the engine sends them): 50 waiting and the rest refused,
 * and a form too wide to draw answered as JSON.
 */
const view = reactRoot();
beforeEach(() => {
  useInbox.setState({ items: [], refused: undefined });
  vi.mocked(answerElicitation).mockClear();
});

const asked = (i: number, params: Record<string, unknown>): InboxRequest => ({
  key: `1:${i}`,
  connectionId: 1,
  requestId: `elicit-${i}`,
  method: 'elicitation/create',
  params,
  relatedTaskId: 'elicit-flood',
  receivedAt: Date.now(),
});

describe('InboxView', () => {
  it('a flood: the 50 that wait are counted, and the refusals are said', () => {
    act(() => {
      useInbox.getState().apply(
        Array.from({ length: 50 }, (_, i) => ({
          kind: 'asked' as const,
          request: asked(i, {
            message: `Question ${i}`,
            requestedSchema: { type: 'object', properties: {} },
          }),
        })),
      );
      useInbox.setState({ refused: '950 elicitation/create requests refused: 50 already wait for a person' });
    });
    act(() => view.root.render(<InboxView />));
    const text = (testId: string) =>
      view.container.querySelector(`[data-testid="${testId}"]`)?.textContent ?? '';
    expect(text('inbox-view')).toContain('Waiting for you (50)');
    expect(text('inbox-refused')).toContain('950 elicitation/create requests refused');
  });

  it('an elicitation with 10,000 fields: not drawn field by field; answered as JSON', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [`field_${i}`, { type: 'string', title: `Field ${i}` }]),
    );
    act(() =>
      useInbox.getState().apply([
        {
          kind: 'asked',
          request: asked(0, {
            message: 'Fill in all 10000',
            requestedSchema: { type: 'object', properties, required: ['field_0'] },
          }),
        },
      ]),
    );
    act(() => view.root.render(<InboxView />));
    expect(view.container.querySelector('[data-testid="elicitation-too-wide"]')?.textContent).toContain(
      '10,000 fields',
    );
    // One box for the JSON, not an input per field.
    expect(view.container.querySelectorAll('input, textarea').length).toBeLessThan(10);
    const box = view.container.querySelector<HTMLTextAreaElement>('textarea[aria-label="Content as JSON"]')!;
    const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
    act(() => {
      setValue.call(box, '{"field_0": "yes"}');
      box.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => box.form!.requestSubmit());
    expect(answerElicitation).toHaveBeenCalledWith('1:0', 'accept', { field_0: 'yes' });
  });
});
