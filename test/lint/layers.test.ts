import { readdirSync } from 'node:fs';
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
        "import { queryKeys } from '../tracker/queries';\nexport const x = queryKeys;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint('src/tracker/probe.ts', "import { useState } from 'react';\nexport const x = useState;\n"),
    ).toContain('no-restricted-imports');
  });

  it('fails the tracking core importing the report rules above it', async () => {
    expect(
      await lint(
        'src/tracker/probe.ts',
        "import { RULES } from '../rules/catalogue';\nexport const x = RULES;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
  });

  it('sees src/devserver, whose imports end in .js: a page module there fails', async () => {
    expect(
      await lint('src/devserver/probe.ts', "import { App } from '../app/App.js';\nexport const x = App;\n"),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint(
        'src/devserver/probe.ts',
        "import { queryKeys } from '../tracker/queries.js';\nexport const x = queryKeys;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint(
        'src/devserver/probe.ts',
        "import { isTerminal } from '../mcp/index.js';\nexport const x = isTerminal;\n",
      ),
    ).toEqual([]);
  });

  it('fails an import it cannot resolve, rather than skipping it', async () => {
    expect(
      await lint('src/devserver/probe.ts', "import { x } from './no-such-module.js';\nexport const y = x;\n"),
    ).toContain('import-x/no-unresolved');
    expect(
      await lint('src/engine/probe.ts', "import { x } from '../no-such-layer/thing';\nexport const y = x;\n"),
    ).toContain('import-x/no-unresolved');
  });

  it('keeps the bridge page code: the engine may neither import it nor use the page', async () => {
    expect(
      await lint(
        'src/engine/probe.ts',
        "import { getEngine } from '../bridge/engine-bridge';\nexport const x = getEngine;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint(
        'src/engine/probe.ts',
        'export const x = () => requestAnimationFrame(() => document.title);\n',
      ),
    ).toEqual(['no-restricted-globals', 'no-restricted-globals']);
    expect(
      await lint(
        'src/bridge/probe.ts',
        'export const x = () => requestAnimationFrame(() => document.title);\n',
      ),
    ).toEqual([]);
  });

  it('holds every folder under src/ to the table: a folder the table does not name would be unchecked', async () => {
    const folders = readdirSync(new URL('../../src', import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'app')
      .map((entry) => entry.name);
    expect(folders).toContain('receiver');
    for (const folder of folders) {
      expect(
        await lint(`src/${folder}/probe.ts`, "import { App } from '../app/App';\nexport const x = App;\n"),
        folder,
      ).toContain('import-x/no-restricted-paths');
    }
  });

  it("keeps the page's receiver and trace-files folders apart from each other and above the tasks", async () => {
    expect(
      await lint(
        'src/receiver/probe.ts',
        "import { buildHar } from '../trace-files/har';\nexport const x = buildHar;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint(
        'src/tasks/probe.ts',
        "import { connect } from '../receiver/actions';\nexport const x = connect;\n",
      ),
    ).toContain('import-x/no-restricted-paths');
    expect(
      await lint(
        'src/receiver/probe.ts',
        "import { useListAsk } from '../tasks/list-ask-store';\nexport const x = useListAsk;\n",
      ),
    ).toEqual([]);
  });

  it('passes an import that goes down the layers', async () => {
    expect(
      await lint(
        'src/tools/probe.ts',
        "import { queryKeys } from '../tracker/queries';\nexport const x = queryKeys;\n",
      ),
    ).toEqual([]);
  });
});
