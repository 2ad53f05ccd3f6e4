import { describe, expect, it } from 'vitest';
import { matchesTool } from './ToolList';

const env = {
  name: 'get-env',
  title: 'Print Environment Tool',
  description: 'Returns all environment variables',
};

describe('matchesTool', () => {
  it('matches every word in the name, title or description, in any case and order', () => {
    expect(matchesTool(env, '')).toBe(true);
    expect(matchesTool(env, 'GET-ENV')).toBe(true);
    expect(matchesTool(env, 'print')).toBe(true);
    expect(matchesTool(env, 'variables  returns')).toBe(true);
    expect(matchesTool(env, 'print sum')).toBe(false);
  });

  it('copes with a tool that has no title or description', () => {
    expect(matchesTool({ name: 'echo' }, 'ech')).toBe(true);
    expect(matchesTool({ name: 'echo' }, 'undefined')).toBe(false);
  });
});
