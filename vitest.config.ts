import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/wasm/**/*.test.ts', 'tests/diff/**/*.test.ts', 'tests/fuzz/**/*.test.ts'],
    environment: 'node',
    // A file per CPU at once (Vitest would keep one CPU for itself, and so
    // run one file at a time on a machine of two): the files wait on
    // nothing of each other's, and the servers they start take free ports.
    maxWorkers: availableParallelism(),
    globalSetup: ['tests/diff/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
