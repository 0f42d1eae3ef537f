import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('./web', import.meta.url));
/** `npm run build` gives a self-contained dist/: any static host serves it,
 *  from any sub-path (base './'). */
const outDir = fileURLToPath(new URL('./dist', import.meta.url));

/** The page's Content-Security-Policy: scripts only from the app's own
 *  files (no inline script, no eval), WebAssembly compiled from them
 *  ('wasm-unsafe-eval' allows WebAssembly.compile and nothing else),
 *  workers (the engine's, the offline one) only from the same origin, no
 *  plugins, and no <base> to move relative addresses elsewhere. Written
 *  into the built index.html, so any static host serves it, and sent as a
 *  header by `vite preview` (scripts/serve.mjs, the end-to-end tests). The
 *  development server has none: its hot reload injects an inline script. */
export const CONTENT_SECURITY_POLICY = [
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

/** Cross-origin isolation: a page sent with these headers may share
 *  memory with its engine worker, which is how the console's second
 *  connection reaches the worker while it runs a busy script
 *  (wasm/inbox.ts). Everything the page loads is its own, so nothing else
 *  changes. Sent by `vite preview` and the development server; a host that
 *  cannot send headers serves a page without the second connection. */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

function cspPlugin(): Plugin {
  return {
    name: 'glasskv-csp',
    apply: 'build',
    transformIndexHtml: () => [{
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
      injectTo: 'head-prepend',
    }],
  };
}

/** Writes dist/sw.js from web/offline/sw.js once the bundle is written: the
 *  app's files to cache, and a cache name that changes with their bytes (a
 *  new build replaces the old cache). */
function offlinePlugin(): Plugin {
  return {
    name: 'glasskv-offline',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir ?? outDir;
      const names = Object.keys(bundle).filter((n) => !n.endsWith('.map')).sort();
      const hash = createHash('sha256');
      for (const n of names) {
        const b = bundle[n];
        hash.update(n).update(b.type === 'chunk' ? b.code : b.source);
      }
      const files = ['./', ...names.map((n) => `./${n}`)];
      const source = readFileSync(join(root, 'offline', 'sw.js'), 'utf8')
        .replace('__GK_CACHE__', `glasskv-${hash.digest('hex').slice(0, 16)}`)
        .replace('__GK_FILES__', JSON.stringify(files));
      writeFileSync(join(dir, 'sw.js'), source);
    },
  };
}

export default defineConfig({
  root,
  base: './',
  plugins: [react(), offlinePlugin(), cspPlugin()],
  worker: { format: 'es' },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
  },
  server: { host: '127.0.0.1', port: 5173, headers: ISOLATION_HEADERS },
  preview: {
    host: '127.0.0.1', port: 4173,
    headers: { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, ...ISOLATION_HEADERS },
  },
});
