import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** Lints a file that is not on disk as if it sat at `filePath`, with the project's own config. */
async function lint(filePath: string, code: string) {
  const eslint = new ESLint();
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.ruleId);
}

describe('the layer rule', () => {
  it('fails a feature that imports the app shell', async () => {
    expect(
      await lint('src/tools/probe.ts', "import { App } from '../app/App';\nexport const x = App;\n"),
    ).toContain('import-x/no-restricted-paths');
  });

  it('fails the protocol core importing anything above it, and React in the tracking core', async () => {
    expect(
      await lint(
        'src/mcp/probe.ts',
        "import { queryKeys } from '../tasks/core/query-keys';\nexport const x = queryKeys;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint(
        'src/tasks/core/probe.ts',
        "import { useState } from 'react';\nexport const x = useState;\n",
      ),
    ).toContain('no-restricted-imports');
  });

  it('passes an import that goes down the layers', async () => {
    expect(
      await lint(
        'src/tools/probe.ts',
        "import { queryKeys } from '../tasks/core/query-keys';\nexport const x = queryKeys;\n",
      ),
    ).toEqual([]);
  });
});
