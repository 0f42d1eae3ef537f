// npm run bench: builds the benchmark driver natively and with Emscripten,
// runs both on the same command stream and prints the figures and ratios
// measured in this run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'build', 'bench');
mkdirSync(out, { recursive: true });
const srcs = readdirSync(join(root, 'engine/src'))
  .filter((f) => f.endsWith('.c')).map((f) => join(root, 'engine/src', f));
const common = ['-std=gnu11', '-O2', '-D_DEFAULT_SOURCE', '-DNDEBUG',
  `-I${root}/engine/include`, `-I${root}/engine/src`,
  join(root, 'tests/bench/bench.c'), ...srcs];

function must(cmd, args, env) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env } });
  if (r.status !== 0) { console.error(`bench: ${cmd} failed`); process.exit(1); }
  return r.stdout.toString();
}

console.log('bench: building native and WebAssembly drivers...');
must('cc', [...common, '-o', join(out, 'bench-native'), '-lm']);
must('emcc', [...common, '-o', join(out, 'bench-wasm.cjs'),
  '-sENVIRONMENT=node', '-sWASM_ASYNC_COMPILATION=0', '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4GB'],
  { NODE_PATH: '/usr/share/nodejs', EMSDK_PYTHON: '/usr/bin/python3' });

const args = process.argv.slice(2);
console.log('bench: running native...');
const nat = JSON.parse(must(join(out, 'bench-native'), args));
console.log('bench: running WebAssembly in Node...');
const wasm = JSON.parse(must(process.execPath, [join(out, 'bench-wasm.cjs'), ...args]));

const f = (n) => Math.round(n).toLocaleString('en-US').padStart(12);
console.log(`\nSame command stream: ${nat.commands.toLocaleString('en-US')} SETs then GETs, pipelined in batches of 1000 (best of 3 runs)\n`);
console.log('                      native          wasm   native/wasm');
console.log(`SET ops/s      ${f(nat.set_per_sec)}  ${f(wasm.set_per_sec)}   ${(nat.set_per_sec / wasm.set_per_sec).toFixed(2)}x`);
console.log(`GET ops/s      ${f(nat.get_per_sec)}  ${f(wasm.get_per_sec)}   ${(nat.get_per_sec / wasm.get_per_sec).toFixed(2)}x`);
console.log(`load ${nat.load_keys.toLocaleString('en-US')} keys  ${nat.load_seconds.toFixed(2).padStart(10)} s  ${wasm.load_seconds.toFixed(2).padStart(10)} s   ${(wasm.load_seconds / nat.load_seconds).toFixed(2)}x`);
console.log(`memory after load   ${(nat.load_memory / 1048576).toFixed(0).padStart(8)} MB  ${(wasm.load_memory / 1048576).toFixed(0).padStart(10)} MB`);
console.log(`pipelining lab (2 x 1,000,000 simulated commands): ${nat.lab_seconds.toFixed(2)} s native, ${wasm.lab_seconds.toFixed(2)} s wasm = ${Math.round(2e6 / wasm.lab_seconds).toLocaleString('en-US')} simulated commands per wall-second in wasm`);
console.log(`snapshot of the wasm memory at ${nat.load_keys.toLocaleString('en-US')} keys (${wasm.heap_mb} MB): take ${wasm.snapshot_ms.toFixed(1)} ms, restore ${wasm.restore_ms.toFixed(1)} ms`);
console.log('\nAOF (virtual time: each policy on each disk preset, 50 clients doing SET):');
must('make', ['-s', '-C', join(root, 'engine')]);
const aof = JSON.parse(must(join(root, 'build', 'native', 'glasskv'), ['run', 'aof-benchmark']));
for (const r of aof.runs) {
  if (r.disk) console.log(`  ${r.name.padEnd(26)} ${r.disk.padEnd(10)} ${Math.round(r.ops_per_sec).toLocaleString('en-US').padStart(9)} ops/s  ${r.fsyncs_per_sec.toFixed(1).padStart(7)} fsyncs/s  p99 ${r.p99_latency_ms.toFixed(2)} ms`);
  else console.log(`  ${r.name}: ${JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'name')))}`);
}
const target = 1_000_000;
const minWasm = Math.min(wasm.set_per_sec, wasm.get_per_sec);
const worst = Math.max(nat.set_per_sec / wasm.set_per_sec, nat.get_per_sec / wasm.get_per_sec);
console.log(`\ntarget: wasm >= ${target.toLocaleString('en-US')} ops/s: ${minWasm >= target ? 'met' : 'NOT met'} (${f(minWasm).trim()})`);
console.log(`target: wasm within 1.6x of native: ${worst <= 1.6 ? 'met' : 'NOT met'} (${worst.toFixed(2)}x)`);
console.log(`target: pipelining lab under 5 s of wall time: ${wasm.lab_seconds < 5 ? 'met' : 'NOT met'} in wasm under Node (${wasm.lab_seconds.toFixed(2)} s); Chromium runs the same wasm`);
