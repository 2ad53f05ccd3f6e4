import { describe, expect, it } from 'vitest';
import { ClassifiedFailure, classifyError } from '../mcp';
import { engineOverChannel } from '../../test/helpers/engine-channel';

describe('EngineBridge', () => {
  it("rejects a failed command with the engine's classified error, which classifyError gives back whole", async () => {
    const { bridge, close } = engineOverChannel({ history: async () => null });
    try {
      const error = await bridge.request({ type: 'listTools' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ClassifiedFailure);
      expect((error as Error).message).toBe('Not connected to a receiver.');
      expect(classifyError(error, { method: 'tools/list' })).toEqual({
        kind: 'other',
        message: 'Not connected to a receiver.',
      });
    } finally {
      await close();
    }
  });
});
