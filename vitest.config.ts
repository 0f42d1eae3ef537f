import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/wasm/**/*.test.ts', 'tests/diff/**/*.test.ts', 'tests/fuzz/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['tests/diff/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
