import { USER_REJECTED_CODE, samplingReply } from '../mcp';
import { getEngine } from '../engine/bridge';

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
  answer(key, action, { result: action === 'accept' ? { action, content: content ?? {} } : { action } });
}

export function answerSampling(key: string, reply: { text: string; model: string } | 'decline'): void {
  if (reply === 'decline') {
    answer(key, 'declined', {
      error: { code: USER_REJECTED_CODE, message: 'The user declined the sampling request' },
    });
    return;
  }
  answer(key, `replied as ${reply.model}`, { result: samplingReply(reply) });
}
