// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import type { Command } from '../engine/messages';
import { useInbox } from './inbox-store';
import { InboxButton, InboxView } from './InboxView';

/** What the page sent to the engine: the answers, as the engine would get them. */
const sent = vi.hoisted(() => [] as unknown[]);
vi.mock('../bridge/engine-bridge', () => ({
  getEngine: () => ({
    request: (command: Command) => {
      sent.push(command);
      return Promise.resolve(true);
    },
  }),
}));

/** The demo's ask_user question as the engine hands it to the page: one required text field. */
const question = {
  key: '1:7:1',
  connectionId: 1,
  requestId: 7,
  method: 'elicitation/create',
  params: {
    message: 'Which colour should the report use?',
    requestedSchema: {
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer' } },
      required: ['answer'],
    },
  },
  relatedTaskId: 'task-1',
  receivedAt: Date.now(),
};

const view = reactRoot();
beforeEach(() => {
  sent.length = 0;
  useInbox.setState({ items: [], refused: undefined });
});

const $ = (selector: string) => view.container.querySelector<HTMLElement>(selector);

/** Types into a controlled input as a person does: the value, then the input event React listens for. */
function type(input: HTMLInputElement | HTMLTextAreaElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input) as object, 'value')!.set!;
  act(() => {
    setter.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

const accept = () =>
  act(() => [...view.container.querySelectorAll('button')].find((b) => b.textContent === 'Accept')!.click());

describe('the inbox and a question waiting in it', () => {
  it('counts what waits on its button; the question is checked before anything is sent; answered, it waits no more', () => {
    act(() =>
      view.root.render(
        <>
          <InboxButton onOpen={() => undefined} />
          <InboxView />
        </>,
      ),
    );
    expect($('[data-testid="inbox-button"]')?.getAttribute('aria-label')).toBe('Inbox, 0 waiting');
    act(() => useInbox.getState().apply([{ kind: 'asked', request: question }]));
    expect($('[data-testid="inbox-button"]')?.getAttribute('aria-label')).toBe('Inbox, 1 waiting');
    expect($('[data-testid="elicitation-form"]')?.textContent).toContain(
      'Which colour should the report use?',
    );

    // Left empty, the required answer is refused on the page: the form says so and nothing goes out.
    accept();
    expect($('[data-testid="elicitation-form"]')?.textContent).toContain('required');
    expect(sent).toEqual([]);

    type($(`[id="elicit-${question.key}-answer"]`) as HTMLInputElement, 'teal');
    accept();
    expect(sent).toEqual([
      {
        type: 'answer',
        key: question.key,
        outcome: 'accept',
        reply: { result: { action: 'accept', content: { answer: 'teal' } } },
      },
    ]);

    // The engine says it was answered: nothing waits, and the record keeps what was accepted.
    act(() =>
      useInbox
        .getState()
        .apply([{ kind: 'settled', key: question.key, state: 'answered', outcome: 'accept' }]),
    );
    expect($('[data-testid="inbox-button"]')?.getAttribute('aria-label')).toBe('Inbox, 0 waiting');
    expect($('[data-testid="inbox-view"]')?.textContent).toContain('Waiting for you (0)');
    const item = $('[data-testid="inbox-item"]');
    expect(item?.dataset.state).toBe('answered');
    expect(item?.textContent).toContain('accept');
    expect($('[data-field="answer"]')?.textContent).toBe('teal');
  });

  it('a request outside any task says so, and a sampling reply goes back with its model', () => {
    act(() => view.root.render(<InboxView />));
    act(() =>
      useInbox.getState().apply([
        {
          kind: 'asked',
          request: {
            key: '1:8:2',
            connectionId: 1,
            requestId: 8,
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: 'What is six times seven?' } }],
            },
            receivedAt: Date.now(),
          },
        },
      ]),
    );
    const item = $('[data-testid="inbox-item"]');
    expect(item?.textContent).toContain('outside any task');
    expect($('[data-testid="sampling-form"]')?.textContent).toContain('What is six times seven?');
    type(item!.querySelector('textarea[aria-label="Reply text"]')!, 'forty-two');
    type(item!.querySelector('input[id="model-1:8:2"]')!, 'a-person');
    act(() => [...item!.querySelectorAll('button')].find((b) => b.textContent === 'Reply')!.click());
    expect(sent).toMatchObject([
      {
        type: 'answer',
        key: '1:8:2',
        outcome: 'replied as a-person',
        reply: { result: { content: { type: 'text', text: 'forty-two' }, model: 'a-person' } },
      },
    ]);
  });
});
