/**
 * What every client rule's judge shares: the judgement it returns (how many times the rule could be judged and
 * the offences among them), the slack on intervals, and the words of its reasons.
 */
import { isObject } from '../mcp';
import type { ClientRuleId } from './client-catalogue';
import type { Found } from './evidence';

export interface ClientJudgement {
  id: ClientRuleId;
  observations: number;
  offences: Found[];
  passReason: string;
  brokenReason: (count: number) => string;
  unobservedReason?: string;
}

/** What the proxy's hop and a client's timer may take off an interval without it being early. */
export const SLACK_MS = 20;

export const offence = (
  request: { wallTime: number },
  taskId: string | undefined,
  detail: string,
): Found => ({
  ...(taskId !== undefined ? { taskId } : {}),
  at: request.wallTime,
  when: request.wallTime,
  detail,
});

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const ms = (value: number) => `${Math.round(value)} ms`;

export function judgement(
  id: ClientRuleId,
  observations: number,
  offences: Found[],
  passReason: string,
  brokenReason: (count: number) => string,
  unobservedReason?: string,
): ClientJudgement {
  return {
    id,
    observations,
    offences,
    passReason,
    brokenReason,
    ...(unobservedReason ? { unobservedReason } : {}),
  };
}

export const has = (obj: unknown, ...path: string[]): boolean => {
  let at: unknown = obj;
  for (const key of path) {
    if (!isObject(at) || !(key in at)) return false;
    at = at[key];
  }
  return true;
};
