import { defineConfig } from 'vite';

/**
 * The `taskscope` command as the package ships it: src/cli/main.ts and everything it imports, bundled for
 * Node into dist-node/, with the package's dependencies left as imports (installed with it). The sources use
 * extensionless imports that Node's ESM loader would not follow; a bundle has none left. `npm pack` builds it
 * (prepack), together with the page in dist/.
 */
export default defineConfig({
  // The page's public/ folder belongs to dist/ only.
  publicDir: false,
  // The engine's small page-side libraries are devDependencies (the page bundles them): bundled here too,
  // so `check` and `watch` run from a package installed without dev dependencies.
  ssr: { noExternal: ['zustand', 'idb'] },
  build: {
    ssr: 'src/cli/main.ts',
    outDir: 'dist-node',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      output: { format: 'es', entryFileNames: 'taskscope.js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
