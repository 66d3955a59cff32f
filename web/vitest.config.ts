import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: decodeURIComponent(new URL('.', import.meta.url).pathname),
  test: { include: ['src/**/*.test.ts'], environment: 'node' },
});
