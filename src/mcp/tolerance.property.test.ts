import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normaliseTask } from './normalise';
import { normaliseResult } from './normalise-result';
import { ERROR_KINDS, classifyError, type ErrorKind } from './classify';
import { HttpStatusError } from './errors';
import { TASK_STATUSES } from './types';

const KINDS: readonly ErrorKind[] = ERROR_KINDS;

/** Task-like objects: right keys with any values, so the interesting branches are reached, not just "not an object". */
const taskLike = fc.record(
  {
    taskId: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    status: fc.oneof(fc.constantFrom(...TASK_STATUSES), fc.string(), fc.anything()),
    statusMessage: fc.anything(),
    createdAt: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.string(),
      fc.anything(),
    ),
    lastUpdatedAt: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.anything(),
    ),
    ttl: fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.anything()),
    pollInterval: fc.oneof(fc.integer(), fc.double(), fc.anything()),
  },
  { requiredKeys: [] },
);
const answer = fc.oneof(
  fc.anything(),
  taskLike,
  taskLike.map((task) => ({ task })),
  taskLike.map((t) => ({ ...t, resultType: 'task' })),
);

describe('tolerance: nothing a receiver sends makes the core throw', () => {
  it('normaliseTask returns a task or null, and warns whenever it is not clean', () => {
    fc.assert(
      fc.property(answer, fc.option(fc.string()), (raw, expected) => {
        const { value, warnings } = normaliseTask(raw, { expectedTaskId: expected ?? undefined });
        expect(Array.isArray(warnings)).toBe(true);
        if (value === null) expect(warnings.length).toBeGreaterThan(0);
        else {
          expect(typeof value.taskId).toBe('string');
          expect(value.status === null || TASK_STATUSES.includes(value.status)).toBe(true);
          if (value.pollInterval !== undefined) expect(value.pollInterval).toBeGreaterThanOrEqual(100);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('normaliseResult always yields an object or null result', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ taskId: fc.anything(), status: fc.anything(), result: fc.anything() }),
        ),
        (raw) => {
          const { value } = normaliseResult(raw);
          expect(
            value.result === null || (typeof value.result === 'object' && !Array.isArray(value.result)),
          ).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('classifyError gives every input one of the known kinds and a message', () => {
    const thrown = fc.oneof(
      fc.anything(),
      fc.record({ code: fc.oneof(fc.integer(), fc.double()), message: fc.anything(), data: fc.anything() }),
      fc.tuple(fc.integer({ min: 100, max: 599 }), fc.string()).map(([s, b]) => new HttpStatusError(s, b)),
      fc.string().map((m) => new TypeError(m)),
    );
    fc.assert(
      fc.property(
        thrown,
        fc.constantFrom(undefined, 'tasks/get', 'tasks/result', 'tools/call'),
        fc.boolean(),
        (error, method, knownTask) => {
          const c = classifyError(error, { method, knownTask, taskLive: knownTask });
          expect(KINDS).toContain(c.kind);
          expect(c.message.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
