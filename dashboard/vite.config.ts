/**
 * The dashboard's build (docs/dashboard.md): Preact components in TSX, compiled by Vite's esbuild
 * (no plugin), into dist/dashboard, served by the api at /dashboard (src/routes/dashboard.ts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)), emptyOutDir: true, sourcemap: false },
  logLevel: 'warn',
});
