/**
 * `write` never rejects: every failure becomes an outcome the page can show, and a full quota must read as
 * such whether the browser reports it on the request or on the transaction, with whatever words it gives.
 */

import type { WriteOutcome } from './history-types';

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'name' in error && typeof error.name === 'string'
    ? error.name
    : undefined;
}

function errorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string')
    return error.message || errorName(error) || 'unknown error';
  return String(error);
}

/** The browser's own words when it has any; fake and some real DOMExceptions carry none. */
function quotaDetail(error: unknown): string {
  const message = errorMessage(error).replace(/\.$/, '');
  return message && message !== 'QuotaExceededError' ? message : 'nothing more could be saved';
}

/** Browsers report a full quota as a DOMException named QuotaExceededError (legacy code 22), on the request or the transaction. */
function isQuotaError(error: unknown): boolean {
  if (errorName(error) === 'QuotaExceededError') return true;
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 22;
}

/** `closedReason` is why the database can no longer be used, if it cannot. */
export function unavailableOutcome(closedReason: string | undefined): WriteOutcome {
  return {
    ok: false,
    reason: 'unavailable',
    message: `The history database is not available: ${closedReason ?? 'unknown reason'}.`,
  };
}

/** A quota error wins over a closed database, which wins over the failure's own message. */
export function failureOutcome(
  error: unknown,
  txError: unknown,
  closedReason: string | undefined,
): WriteOutcome {
  if (isQuotaError(error) || isQuotaError(txError)) {
    return {
      ok: false,
      reason: 'quota',
      message: `The browser's storage quota for this site is full: ${quotaDetail(isQuotaError(error) ? error : txError)}.`,
    };
  }
  if (closedReason !== undefined) return unavailableOutcome(closedReason);
  return {
    ok: false,
    reason: 'error',
    message: `Saving the history failed: ${errorMessage(txError ?? error)}`,
  };
}
