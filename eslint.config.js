import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

/**
 * The layers, lowest first (README, "Architecture"): each may import only from layers below it and itself.
 *   mcp → tasks/core → engine → ui → state → results, inbox, traffic → tasks → connection, tools, trace, report → app
 * devserver is Node only and may use mcp alone.
 */
const below = {
  mcp: [],
  'tasks/core': ['mcp'],
  engine: ['mcp', 'tasks/core'],
  ui: ['mcp', 'tasks/core', 'engine'],
  state: ['mcp', 'tasks/core', 'engine', 'ui'],
  results: ['mcp', 'tasks/core', 'engine', 'state', 'ui'],
  inbox: ['mcp', 'tasks/core', 'engine', 'state', 'ui'],
  traffic: ['mcp', 'tasks/core', 'engine', 'state', 'ui'],
  tasks: ['mcp', 'tasks/core', 'engine', 'state', 'ui', 'results', 'inbox', 'traffic'],
  connection: ['mcp', 'tasks/core', 'engine', 'state', 'ui', 'results', 'inbox', 'traffic', 'tasks'],
  tools: ['mcp', 'tasks/core', 'engine', 'state', 'ui', 'results', 'inbox', 'traffic', 'tasks'],
  trace: ['mcp', 'tasks/core', 'engine', 'state', 'ui', 'results', 'inbox', 'traffic', 'tasks'],
  report: ['mcp', 'tasks/core', 'engine', 'state', 'ui', 'results', 'inbox', 'traffic', 'tasks'],
  devserver: ['mcp'],
};
const layerZones = Object.entries(below).map(([layer, allowed]) => ({
  target: `./src/${layer}`,
  from: './src',
  except: [`./${layer}`, ...allowed.map((l) => `./${l}`), './index.css'],
  message: `src/${layer} may import only from: ${allowed.length ? allowed.join(', ') : 'itself'} (see the layers in eslint.config.js and the README).`,
}));

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report'] },
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
    },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })],
    },
    languageOptions: { globals: globals.browser },
  },
  {
    // The protocol core, the tracking core and the engine run in a Worker and in Node: no React, no DOM.
    files: ['src/mcp/**', 'src/tasks/core/**', 'src/engine/**'],
    rules: {
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
    files: ['src/devserver/**', 'test/**', 'bench/**', '*.config.ts', '.ci/**', '**/*.mjs'],
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
