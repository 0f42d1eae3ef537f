#!/usr/bin/env node
// Builds the engine to WebAssembly: every engine/src/*.c, the redis-cli
// formatter (engine/cli/cliformat.c), wasm/exports.c and the seam that
// wasm/seam.mjs generates from engine/include/glasskv.h, linked into one
// ES module factory (createGlasskv) and its .wasm, written inside the Vite
// source tree so that Vite rewrites the .wasm URL in dev and in builds. The
// seam's TypeScript (seam.ts, glasskv.d.mts) is written next to them.
//
//   node wasm/build.mjs            build if any input is newer than the output
//   node wasm/build.mjs --force    build unconditionally
//
// Exits non-zero, with the compiler's message, when the build fails.
import { spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outC, writeSeam } from './seam.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const outDir = join(root, 'web', 'src', 'wasm-gen');
const outJs = join(outDir, 'glasskv.mjs');
const outWasm = join(outDir, 'glasskv.wasm');

const runtime = ['UTF8ToString', 'stringToUTF8', 'lengthBytesUTF8', 'HEAPU8'];

function fail(message) {
  process.stderr.write(`wasm/build.mjs: ${message}\n`);
  process.exit(1);
}

function cFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.c')).sort().map((f) => join(dir, f));
}

function headerFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.h')).map((f) => join(dir, f));
}

function inputs() {
  const engineSrc = cFiles(join(root, 'engine', 'src'));
  if (engineSrc.length === 0) fail('no C sources in engine/src');
  const cliformat = join(root, 'engine', 'cli', 'cliformat.c');
  if (!existsSync(cliformat)) fail('engine/cli/cliformat.c is missing');
  const sources = [...engineSrc, cliformat, ...cFiles(here), outC];
  const deps = [
    ...sources,
    ...headerFiles(join(root, 'engine', 'src')),
    ...headerFiles(join(root, 'engine', 'include')),
    ...headerFiles(join(root, 'engine', 'cli')),
    ...headerFiles(here),
    fileURLToPath(import.meta.url),
  ];
  return { sources, deps };
}

function upToDate(deps) {
  if (![outJs, outWasm].every(existsSync)) return false;
  const built = Math.min(statSync(outJs).mtimeMs, statSync(outWasm).mtimeMs);
  return deps.every((f) => statSync(f).mtimeMs <= built);
}

function emccArgs(sources, jsOut, exported) {
  return [
    '-std=c11', '-O2', '-D_DEFAULT_SOURCE',
    // The native Makefile's warnings. Clang, unlike GCC, also reports
    // positional initializers that leave trailing fields zero (the command
    // table does that on purpose), so that one warning is turned off.
    '-Wall', '-Wextra', '-Wno-unused-parameter', '-Wno-missing-field-initializers',
    `-I${join(root, 'engine', 'include')}`,
    `-I${join(root, 'engine', 'src')}`,
    `-I${join(root, 'engine', 'cli')}`,
    `-I${here}`,
    ...sources,
    '-o', jsOut,
    '-sMODULARIZE=1', '-sEXPORT_ES6=1', '-sEXPORT_NAME=createGlasskv',
    '-sENVIRONMENT=web,worker',
    '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4GB',
    '-sASSERTIONS=0',
    `-sEXPORTED_FUNCTIONS=${exported.map((f) => `_${f}`).join(',')}`,
    `-sEXPORTED_RUNTIME_METHODS=${runtime.join(',')}`,
  ];
}

function main() {
  const force = process.argv.includes('--force');
  // The seam first: its files are rewritten only when their text changes,
  // and seam.c lists the exports, so a new call from TypeScript rebuilds.
  let seam;
  try {
    seam = writeSeam();
  } catch (e) {
    fail(e.message);
  }
  const { sources, deps } = inputs();
  if (!force && upToDate(deps)) {
    console.log('wasm: up to date (web/src/wasm-gen)');
    return;
  }
  mkdirSync(outDir, { recursive: true });
  // Build in a scratch directory and move the pair at the end, so a failed
  // build never leaves a .mjs that disagrees with its .wasm.
  const tmpDir = join(outDir, '.build');
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir);
  const tmpJs = join(tmpDir, 'glasskv.mjs');
  const tmpWasm = join(tmpDir, 'glasskv.wasm');
  const env = { ...process.env, NODE_PATH: '/usr/share/nodejs', EMSDK_PYTHON: '/usr/bin/python3' };
  const started = Date.now();
  const run = spawnSync('emcc', emccArgs(sources, tmpJs, seam.exports), { cwd: root, env, encoding: 'utf8' });
  if (run.error) {
    fail(run.error.code === 'ENOENT'
      ? 'emcc not found: install the Debian package "emscripten" (npm run setup does it)'
      : `could not run emcc: ${run.error.message}`);
  }
  if (run.stdout) process.stdout.write(run.stdout);
  if (run.stderr) process.stderr.write(run.stderr);
  if (run.status !== 0) {
    rmSync(tmpDir, { recursive: true, force: true });
    fail(`emcc failed (exit ${run.status}); sources: ${sources.map((s) => relative(root, s)).join(' ')}`);
  }
  renameSync(tmpWasm, outWasm);
  renameSync(tmpJs, outJs);
  rmSync(tmpDir, { recursive: true, force: true });
  // The outputs are dated when the build began: a source saved while emcc
  // ran is then newer than them, and the next run builds again.
  for (const f of [outJs, outWasm]) utimesSync(f, started / 1000, started / 1000);
  const kb = (statSync(outWasm).size / 1024).toFixed(0);
  console.log(`wasm: built web/src/wasm-gen/glasskv.{mjs,wasm} (${kb} KB wasm) in ${Date.now() - started} ms`);
}

main();
