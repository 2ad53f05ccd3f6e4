import { USER_REJECTED_CODE, samplingReply } from '../mcp';
import { getEngine } from '../bridge/engine-bridge';
import { useInbox } from './inbox-store';

/** The engine holds the receiver's request open until a person answers; this sends the answer back. */
function answer(key: string, outcome: string, reply: Parameters<typeof sendAnswer>[2]): void {
  void sendAnswer(key, outcome, reply);
}

function sendAnswer(
  key: string,
  outcome: string,
  reply: { result: Record<string, unknown> } | { error: { code: number; message: string } },
): Promise<boolean> {
  return getEngine().request({ type: 'answer', key, outcome, reply });
}

export function answerElicitation(
  key: string,
  action: 'accept' | 'decline' | 'cancel',
  content?: Record<string, unknown>,
): void {
  const sent = action === 'accept' ? (content ?? {}) : undefined;
  useInbox.getState().noteSent(key, { kind: 'elicitation', action, content: sent, at: Date.now() });
  answer(key, action, { result: action === 'accept' ? { action, content: sent } : { action } });
}

export function answerSampling(key: string, reply: { text: string; model: string } | 'decline'): void {
  if (reply === 'decline') {
    useInbox.getState().noteSent(key, { kind: 'sampling-declined', at: Date.now() });
    answer(key, 'declined', {
      error: { code: USER_REJECTED_CODE, message: 'The user declined the sampling request' },
    });
    return;
  }
  useInbox
    .getState()
    .noteSent(key, { kind: 'sampling', text: reply.text, model: reply.model, at: Date.now() });
  answer(key, `replied as ${reply.model}`, { result: samplingReply(reply) });
}
