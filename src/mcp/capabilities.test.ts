import { describe, expect, it } from 'vitest';
import { normaliseTool } from './capabilities';

const tool = (taskSupport?: unknown) => ({
  name: 'job',
  inputSchema: { type: 'object' },
  ...(taskSupport === undefined ? {} : { execution: { taskSupport } }),
});

describe('a tool’s task support, per protocol', () => {
  it('2025-11-25: as declared; absent is forbidden; an unknown value is read as forbidden and said', () => {
    expect(normaliseTool(tool('optional')).tool?.taskSupport).toBe('optional');
    expect(normaliseTool(tool('required')).tool?.taskSupport).toBe('required');
    expect(normaliseTool(tool()).tool?.taskSupport).toBe('forbidden');
    expect(normaliseTool(tool('forbidden'))).toMatchObject({
      tool: { taskSupport: 'forbidden' },
      warnings: [],
    });
    const odd = normaliseTool(tool('sometimes'));
    expect(odd.tool?.taskSupport).toBe('forbidden');
    expect(odd.warnings.map((w) => w.message)).toContain(
      'tool job: unknown taskSupport "sometimes", read as forbidden',
    );
  });

  it('2026-07-28: every tool may run as a task, the receiver decides, even one a dual-era server lists as forbidden', () => {
    const era = { era: '2026-07-28' } as const;
    expect(normaliseTool(tool(), era).tool?.taskSupport).toBe('receiver');
    expect(normaliseTool(tool('forbidden'), era)).toMatchObject({
      tool: { taskSupport: 'receiver' },
      warnings: [],
    });
    expect(normaliseTool(tool('required'), era).tool?.taskSupport).toBe('required');
    const odd = normaliseTool(tool('sometimes'), era);
    expect(odd.tool?.taskSupport).toBe('receiver');
    expect(odd.warnings.map((w) => w.message)).toContain(
      'tool job: unknown taskSupport "sometimes", read as the receiver deciding',
    );
  });
});
