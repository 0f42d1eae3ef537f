import { defineConfig } from '@playwright/test';

/** The production build (dist/) is served here by `vite preview` for the tests
 *  (GK_E2E_PORT picks another port, so that two checkouts can test at once). */
export const E2E_PORT = Number(process.env.GK_E2E_PORT) || 4179;

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/e2e',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  // The build's service worker stays on: each test has a fresh browser
  // context, so its cache never outlives a test (nor a run), and it asks the
  // network first for the page. tests/e2e/offline.spec.ts tests it.
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}/`,
    viewport: { width: 1600, height: 1000 },
    reducedMotion: 'reduce',
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `node wasm/build.mjs && npx vite build && npx vite preview --host 127.0.0.1 --port ${E2E_PORT} --strictPort`,
    url: `http://127.0.0.1:${E2E_PORT}/`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
