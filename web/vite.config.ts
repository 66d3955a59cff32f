import { defineConfig } from 'vite';

// Vite's own JSX transform (Oxc) with Preact's automatic runtime: no Babel in the build.
export default defineConfig({
  root: decodeURIComponent(new URL('.', import.meta.url).pathname),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  server: {
    proxy: {
      '/agent': { target: 'http://127.0.0.1:8787', changeOrigin: false },
      '/auth': { target: 'http://127.0.0.1:8787', changeOrigin: false },
    },
  },
});
