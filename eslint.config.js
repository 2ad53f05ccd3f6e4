import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

/**
 * The layers, lowest first (docs/architecture.md): each folder may import only from the tiers below it
 * and from itself; folders in one tier do not import each other. The page starts at bridge.
 */
const tiers = [
  ['format'], // pure formatting of times, durations and sizes
  ['mcp'], // the protocol core
  ['tracker'], // the framework-free tracking core
  ['rules'], // the report card's rules, pure
  ['engine'], // the Worker: connections, history, traces, the active check
  ['bridge'], // the page's side of the Worker protocol
  ['ui'],
  ['state'],
  ['results', 'inbox', 'traffic'],
  ['tools'], // runs a tool and keeps its form's drafts; a task's "Run again" fills them
  ['tasks'],
  ['receiver', 'trace-files', 'report'],
  ['stdio'], // the console of a stdio server `taskscope --stdio` runs; its Restart reconnects
  ['app'],
];
const below = Object.fromEntries(
  tiers.flatMap((tier, i) => tier.map((layer) => [layer, tiers.slice(0, i).flat()])),
);
/** Node only, beside the layers: the demo receivers, the start server and its relay. */
below.devserver = ['format', 'mcp'];
/** Node only: the `taskscope` command, over the engine and the servers (no page code). */
below.cli = ['format', 'mcp', 'tracker', 'rules', 'engine', 'devserver'];
const layerZones = Object.entries(below).map(([layer, allowed]) => ({
  target: `./src/${layer}`,
  from: './src',
  except: [`./${layer}`, ...allowed.map((l) => `./${l}`), './index.css'],
  message: `src/${layer} may import only from: ${allowed.length ? allowed.join(', ') : 'itself'} (see the layers in eslint.config.js and docs/architecture.md).`,
}));
/** Code that runs in the Worker and in Node has no page: these globals exist only on the page. */
const pageGlobals = [
  'window',
  'document',
  'localStorage',
  'sessionStorage',
  'requestAnimationFrame',
  'cancelAnimationFrame',
].map((name) => ({
  name,
  message: 'Page code: it belongs in src/bridge or above (this layer runs in the Worker and in Node).',
}));

export default tseslint.config(
  { ignores: ['dist', 'dist-node', 'node_modules', 'test-results', 'playwright-report'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  ...pluginQuery.configs['flat/recommended'],
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, 'import-x': importX },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-cycle': 'error',
      // An import the resolver cannot follow would be skipped by the two rules above: make it an error instead.
      'import-x/no-unresolved': 'error',
    },
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.json'],
          // Node-run code (src/devserver) writes ESM specifiers ending in .js for files that are .ts.
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    languageOptions: { globals: globals.browser },
  },
  {
    // The protocol core, the tracking core, the rules and the engine run in a Worker and in Node: no React, no DOM.
    files: ['src/format/**', 'src/mcp/**', 'src/tracker/**', 'src/rules/**', 'src/engine/**'],
    rules: {
      'no-restricted-globals': ['error', ...pageGlobals],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(react|react-dom|@tanstack/react-query)(/|$)', message: 'No React below the views.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/devserver/**', 'src/cli/**', 'test/**', 'bench/**', '*.config.ts', '.ci/**', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['test/**', 'src/**/*.test.ts', 'src/**/*.test.tsx', 'bench/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'Receiver data is untrusted.',
        },
      ],
    },
  },
);
