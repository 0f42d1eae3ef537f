// Builds everything: the native engine and CLI (make), the WebAssembly
// engine (wasm/build.mjs) and the web app (vite build).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function step(name, cmd, args) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${name} failed`);
    process.exit(1);
  }
  console.log(`build: ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

step('native engine', 'make', ['-s', '-C', 'engine', '-j2']);
if (existsSync(join(root, 'wasm', 'build.mjs')))
  step('wasm engine', process.execPath, ['wasm/build.mjs']);
if (existsSync(join(root, 'vite.config.ts')))
  step('web app', process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn']);
