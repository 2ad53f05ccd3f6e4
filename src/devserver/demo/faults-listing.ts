import type { RequestHandler } from 'express';
import { FAULT_DESCRIPTIONS, FAULT_RULES, FAULT_NAMES } from '../demo-faults/faults.js';
import { AUTH_FAULTS, AUTH_FAULT_RULES } from '../demo-auth/faults.js';

/**
 * GET: the faults the demo receivers break on request, as JSON — what each does and the report-card rule it
 * breaks — with the URLs that ask for them. Mounted behind the server's Origin/Host guard, at `/demo/faults`
 * under `npm start` and `/faults` under `npm run receiver`; `paths` are that server's demo endpoints.
 */
export function faultsListing(paths: { receiver: string; auth: string }): RequestHandler {
  const body = JSON.stringify({
    faults: {
      use: `${paths.receiver}?faults=a,b`,
      names: Object.fromEntries(
        FAULT_NAMES.map((name) => [name, { does: FAULT_DESCRIPTIONS[name], breaks: FAULT_RULES[name] }]),
      ),
    },
    authFaults: {
      use: `${paths.auth}?faults=a,b`,
      // null: the fault breaks no rule (the sign-in must cope with it).
      names: Object.fromEntries(AUTH_FAULTS.map((name) => [name, { breaks: AUTH_FAULT_RULES[name] }])),
    },
  });
  return (_req, res) => {
    res.status(200).type('application/json').set('X-Content-Type-Options', 'nosniff').send(body);
  };
}
