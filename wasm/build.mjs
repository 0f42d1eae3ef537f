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
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outC, writeSeam } from './seam.mjs';
import { WASM_FEATURES, depsDir, depsFlags, depsSources, ensureDeps, luaDir } from '../scripts/deps.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const outDir = join(root, 'web', 'src', 'wasm-gen');
const outJs = join(outDir, 'glasskv.mjs');
const outWasm = join(outDir, 'glasskv.wasm');

const runtime = ['UTF8ToString', 'stringToUTF8', 'lengthBytesUTF8', 'HEAPU8'];

// Code off the path of a command and of the world's clock, compiled for
// size: what a reader runs once in a while (a recovery report, a SCAN walk's
// picture, a digest, CONFIG, DEBUG, INFO-style stats, COMMAND's
// descriptions of the commands, the console's reply formatter, RDB, the
// labs). Everything else is compiled for speed.
const forSize = new Set([
  'cliformat.c', 'command_info.c', 'command_keys.c', 'command_table.c',
  'config.c', 'debug.c', 'digest.c', 'labs.c', 'labs_aof.c',
  'labs_mc.c', 'labs_mem.c', 'labs_net.c', 'labs_repl.c', 'labs_slow.c', 'mc_options.c', 'mc_stats.c', 'rdb.c', 'recovery.c',
  'recovery_report.c', 'scanwalk.c',
]);

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
  const engineSrc = [...cFiles(join(root, 'engine', 'src')), ...cFiles(join(root, 'engine', 'lua'))];
  if (engineSrc.length === 0) fail('no C sources in engine/src');
  const cliformat = join(root, 'engine', 'cli', 'cliformat.c');
  if (!existsSync(cliformat)) fail('engine/cli/cliformat.c is missing');
  const sources = [...engineSrc, cliformat, ...cFiles(here), outC];
  const deps = [
    ...sources,
    ...headerFiles(join(root, 'engine', 'src')),
    ...headerFiles(join(root, 'engine', 'lua')),
    ...headerFiles(join(root, 'engine', 'include')),
    ...headerFiles(join(root, 'engine', 'cli')),
    ...headerFiles(here),
    fileURLToPath(import.meta.url),
    join(root, 'scripts', 'deps.mjs'),
  ];
  return { sources, deps };
}

// Lua 5.1.5 and lua-cjson (scripts/deps.mjs fetches them and names them):
// compiled once into build/deps/wasm (per set of features), since they
// never change.
/** The third-party objects, compiled if missing. */
async function depsObjects() {
  ensureDeps();
  const dir = join(depsDir, `wasm${WASM_FEATURES.join('')}`);
  mkdirSync(dir, { recursive: true });
  const sources = depsSources();
  const objects = sources.map((f) => join(dir, `${basename(f, '.c')}.o`));
  const missing = sources.filter((_, i) => !existsSync(objects[i]));
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      const src = missing[next++];
      await runEmcc(['-O2', '-w', ...WASM_FEATURES, ...depsFlags, '-c', src, '-o', join(dir, `${basename(src, '.c')}.o`)],
        src);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), missing.length) }, worker));
  return objects;
}

function upToDate(deps) {
  if (![outJs, outWasm].every(existsSync)) return false;
  const built = Math.min(statSync(outJs).mtimeMs, statSync(outWasm).mtimeMs);
  return deps.every((f) => statSync(f).mtimeMs <= built);
}

// The native Makefile's warnings. Clang, unlike GCC, also reports
// positional initializers that leave trailing fields zero (the command table
// does that on purpose), so that one warning is turned off.
const compileFlags = [
  '-std=c11', '-D_DEFAULT_SOURCE', ...WASM_FEATURES,
  '-Wall', '-Wextra', '-Wno-unused-parameter', '-Wno-missing-field-initializers',
  `-I${join(root, 'engine', 'include')}`,
  `-I${join(root, 'engine', 'src')}`,
  `-I${join(root, 'engine', 'cli')}`,
  `-I${join(root, 'engine', 'lua')}`,
  `-I${luaDir}`,
  `-I${here}`,
];

function linkArgs(objects, jsOut, exported) {
  return [
    '-O2', ...WASM_FEATURES,
    ...objects,
    '-o', jsOut,
    '-sMODULARIZE=1', '-sEXPORT_ES6=1', '-sEXPORT_NAME=createGlasskv',
    '-sENVIRONMENT=web,worker',
    '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4GB',
    '-sASSERTIONS=0',
    `-sEXPORTED_FUNCTIONS=${exported.map((f) => `_${f}`).join(',')}`,
    `-sEXPORTED_RUNTIME_METHODS=${runtime.join(',')}`,
  ];
}

const emccEnv = { ...process.env, NODE_PATH: '/usr/share/nodejs', EMSDK_PYTHON: '/usr/bin/python3' };

function emccMissing(error) {
  fail(error.code === 'ENOENT'
    ? 'emcc not found: install the Debian package "emscripten" (npm run setup does it)'
    : `could not run emcc: ${error.message}`);
}

/** Compiles one source to an object; resolves to its diagnostics, rejects
 *  with them when the compiler fails. */
function compile(source, object) {
  const opt = forSize.has(basename(source)) ? '-Oz' : '-O2';
  return runEmcc([...compileFlags, opt, '-c', source, '-o', object], source);
}

/** Runs emcc with args (source: what it compiles, for the error). */
function runEmcc(args, source) {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn('emcc', args, { cwd: root, env: emccEnv });
    let said = '';
    child.stdout.on('data', (d) => { said += d; });
    child.stderr.on('data', (d) => { said += d; });
    child.on('error', emccMissing);
    child.on('close', (status) => {
      if (status === 0) resolveRun(said);
      else rejectRun(new Error(`${said}emcc failed on ${relative(root, source)} (exit ${status})`));
    });
  });
}

/** Compiles every source into dir, as many at once as there are cores. */
async function compileAll(sources, dir) {
  const objects = sources.map((s, i) => join(dir, `${i}-${basename(s, '.c')}.o`));
  let next = 0;
  const worker = async () => {
    while (next < sources.length) {
      const i = next++;
      process.stderr.write(await compile(sources[i], objects[i]));
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), sources.length) }, worker));
  return objects;
}

async function main() {
  const force = process.argv.includes('--force');
  // The seam first: its files are rewritten only when their text changes,
  // and seam.c lists the exports, so a new call from TypeScript rebuilds.
  let seam;
  try {
    seam = writeSeam();
  } catch (e) {
    fail(e.message);
  }
  try {
    ensureDeps();
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
  const started = Date.now();
  let objects;
  try {
    objects = [...await compileAll(sources, tmpDir), ...await depsObjects()];
  } catch (e) {
    rmSync(tmpDir, { recursive: true, force: true });
    fail(e.message);
  }
  const run = spawnSync('emcc', linkArgs(objects, tmpJs, seam.exports), { cwd: root, env: emccEnv, encoding: 'utf8' });
  if (run.error) emccMissing(run.error);
  if (run.stdout) process.stdout.write(run.stdout);
  if (run.stderr) process.stderr.write(run.stderr);
  if (run.status !== 0) {
    rmSync(tmpDir, { recursive: true, force: true });
    fail(`emcc failed to link (exit ${run.status})`);
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

await main();
