// npm run bench: builds the benchmark driver natively and with Emscripten,
// runs both on the same command stream and prints the figures and ratios
// measured in this run (SET, GET and EVAL throughput among them, then the
// data types' commands as redis-benchmark sends them, each against the
// target of WebAssembly within 1.6x of native); then the
// eval-vs-zcard lab run live in the app's module (livelab.ts), memcached's
// fill, and redis-benchmark against `glasskv server` and redis-server
// (redis-benchmark.mjs), and what each command costs in the real server
// and in the engine (costs.mjs), the slow-command lab against
// redis-server doing its steps (slow-command.mjs); then seed 003's
// replication experiment, redis-server on this machine beside the labs
// (replication.mjs).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { WASM_FEATURES, depsFlags, depsSources, ensureDeps } from '../../scripts/deps.mjs';
import { realMemcachedFill } from './memcached.mjs';
import { printRedisBenchmark, redisBenchmark } from './redis-benchmark.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'build', 'bench');
mkdirSync(out, { recursive: true });
ensureDeps();
const srcs = ['engine/src', 'engine/lua'].flatMap((d) => readdirSync(join(root, d))
  .filter((f) => f.endsWith('.c')).map((f) => join(root, d, f)));
const common = ['-std=gnu11', '-O2', '-D_DEFAULT_SOURCE', '-DNDEBUG', '-w', ...depsFlags,
  `-I${root}/engine/include`, `-I${root}/engine/src`, `-I${root}/engine/lua`,
  join(root, 'tests/bench/bench.c'), ...srcs, ...depsSources()];

function must(cmd, args, env) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env } });
  if (r.status !== 0) { console.error(`bench: ${cmd} failed`); process.exit(1); }
  return r.stdout.toString();
}

console.log('bench: building native and WebAssembly drivers...');
must('cc', [...common, '-o', join(out, 'bench-native'), '-lm']);
must('emcc', [...common, ...WASM_FEATURES, '-o', join(out, 'bench-wasm.cjs'),
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
console.log(`EVAL ops/s     ${f(nat.eval_per_sec)}  ${f(wasm.eval_per_sec)}   ${(nat.eval_per_sec / wasm.eval_per_sec).toFixed(2)}x   (EVAL "return redis.call('get', KEYS[1])" 1 key)`);
console.log(`load ${nat.load_keys.toLocaleString('en-US')} keys  ${nat.load_seconds.toFixed(2).padStart(10)} s  ${wasm.load_seconds.toFixed(2).padStart(10)} s   ${(wasm.load_seconds / nat.load_seconds).toFixed(2)}x`);
console.log(`memory after load   ${(nat.load_memory / 1048576).toFixed(0).padStart(8)} MB  ${(wasm.load_memory / 1048576).toFixed(0).padStart(10)} MB`);
console.log(`pipelining lab (2 x 1,000,000 simulated commands): ${nat.lab_seconds.toFixed(2)} s native, ${wasm.lab_seconds.toFixed(2)} s wasm = ${Math.round(2e6 / wasm.lab_seconds).toLocaleString('en-US')} simulated commands per wall-second in wasm`);
console.log(`snapshot of the wasm memory at ${nat.load_keys.toLocaleString('en-US')} keys (${wasm.heap_mb} MB): take ${wasm.snapshot_ms.toFixed(1)} ms, restore ${wasm.restore_ms.toFixed(1)} ms`);
const ratioTarget = 1.6;
const typeRows = nat.types.map((t) => {
  const w = wasm.types.find((x) => x.name === t.name);
  return { ...t, wasm: w.per_sec, ratio: t.per_sec / w.per_sec };
});
console.log(`\nData types in the same way, ops/s: ${nat.commands.toLocaleString('en-US')} requests of each (LRANGE_100: a tenth), in this order on one world, best of 3 runs;`);
console.log('redis-benchmark\'s requests, __rand_int__ a 12-digit number below 100,000 drawn from a fixed seed\n');
console.log('                      native          wasm   native/wasm');
for (const t of typeRows)
  console.log(`${t.name.padEnd(15)}${f(t.per_sec)}  ${f(t.wasm)}   ${t.ratio.toFixed(2)}x   ${t.ratio <= ratioTarget ? 'met' : 'NOT met'} (${ratioTarget}x)   ${t.request}`);
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
const missed = typeRows.filter((t) => t.ratio > ratioTarget);
const worstType = typeRows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
console.log(`target: data types in wasm within ${ratioTarget}x of native: ${missed.length === 0
  ? `met for all ${typeRows.length} (worst ${worstType.name} ${worstType.ratio.toFixed(2)}x)`
  : `NOT met for ${missed.map((t) => `${t.name} ${t.ratio.toFixed(2)}x`).join(', ')}; met for the other ${typeRows.length - missed.length}`}`);
console.log(`target: pipelining lab under 5 s of wall time: ${wasm.lab_seconds < 5 ? 'met' : 'NOT met'} in wasm under Node (${wasm.lab_seconds.toFixed(2)} s); Chromium runs the same wasm`);

// The eval-vs-zcard lab as the page runs it live: the worker's message
// handling (wasm/host.ts, wasm/session.ts) in Node on the app's module.
console.log('\nbench: the eval-vs-zcard lab run live in WebAssembly, as the page runs it...');
await build({ input: join(root, 'tests/bench/livelab.ts'), platform: 'node', external: [/^node:/],
  output: { file: join(out, 'livelab.mjs'), format: 'esm' }, logLevel: 'warn' });
const live = JSON.parse(must(process.execPath, [join(out, 'livelab.mjs'), join(root, 'web/src/wasm-gen/glasskv.wasm')]));
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`eval-vs-zcard live (load 1,000,000 zsets, one ZCARD per key, one EVAL over all): ${sec(live.wall_ms)} of wall time, ${sec(live.cpu_ms)} of CPU`);
console.log(`  loading the keys ${sec(live.load_ms)}, the ZCARD run ${sec(live.zcard_ms)}, the EVAL run ${sec(live.eval_ms)} (its trace read into the lab's timeline); ${live.slices} slices`);
console.log(`  bytes written/read: ZCARD ${live.bytes[0].map((n) => n.toLocaleString('en-US')).join(' / ')}, EVAL ${live.bytes[1].map((n) => n.toLocaleString('en-US')).join(' / ')}; the EVAL froze the loop ${live.freeze_ms.toFixed(1)} ms of virtual time`);
console.log(`target: the live eval-vs-zcard lab under 10 s of wall time in wasm: ${live.wall_ms < 10_000 ? 'met' : 'NOT met'} (${sec(live.wall_ms)}); Chromium runs the same wasm`);

// memcached: the same fill natively, in WebAssembly through the C driver
// and through wasm/mc.ts (the app's module), and on Debian's memcached.
console.log('\nbench: memcached fill through wasm/mc.ts, then on the real memcached...');
await build({ input: join(root, 'tests/bench/mcbench.ts'), platform: 'node', external: [/^node:/],
  output: { file: join(out, 'mcbench.mjs'), format: 'esm' }, logLevel: 'warn' });
const ts = JSON.parse(must(process.execPath, [join(out, 'mcbench.mjs'), join(root, 'web/src/wasm-gen/glasskv.wasm')]));
const mc = { native: nat.mc, wasm: wasm.mc, ts };
const real = await realMemcachedFill(ts.options, { size: ts.value_bytes, keyBytes: 10, keyspace: 1e9 }, ts.sets);
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
const perByte = (bytes, items) => (bytes / (items * ts.value_bytes)).toFixed(3);
console.log(`\nmemcached node, ${ts.options}, ${ts.value_bytes}-byte values under distinct 10-digit keys,`);
console.log(`sent in slices of ${ts.slice.toLocaleString('en-US')} sets until a slice evicts (memory full); best of 3 runs\n`);
console.log('                          native (C)    wasm (C)  wasm (mc.ts)  memcached 1.6.18');
const row = (name, pick, fmt) => console.log(`${name.padEnd(22)}${[mc.native, mc.wasm, mc.ts].map((m) => fmt(pick(m)).padStart(12)).join('  ')}  ${fmt(pick(real)).padStart(16)}`);
const num = (n) => Math.round(n).toLocaleString('en-US');
row('sets sent', (m) => m.sets, num);
row('items held', (m) => m.curr_items ?? m.currItems, num);
row('evictions', (m) => m.evictions, num);
row('total_malloced', (m) => m.total_malloced ?? m.totalMalloced, mb);
row('whole memory', (m) => m.world_memory ?? m.rss, mb);
console.log(`${'sets per second'.padEnd(22)}${[mc.native, mc.wasm, mc.ts].map((m) => num(m.sets_per_sec).padStart(12)).join('  ')}  ${num(real.setsPerSec).padStart(16)}`);
console.log('(whole memory: every byte the engine\'s world holds; memcached\'s resident set. memcached\'s rate is a Node');
console.log(' client over loopback TCP, 100 sets a write: a different measurement from the engine\'s in-process rate.)\n');
const items = ts.curr_items, realItems = real.currItems;
console.log(`slab memory per stored value byte: engine ${perByte(ts.total_malloced, items)}, memcached ${perByte(real.totalMalloced, realItems)}` +
  ` = ${((ts.total_malloced / items) / (real.totalMalloced / realItems)).toFixed(3)}x`);
console.log(`whole memory per stored value byte: engine ${perByte(ts.world_memory, items)} (world), memcached ${perByte(real.rss, realItems)} (RSS)` +
  ` = ${((ts.world_memory / items) / (real.rss / realItems)).toFixed(3)}x`);
const same = ['total_malloced', 'curr_items', 'evictions'].filter((k) => {
  const r = { total_malloced: real.totalMalloced, curr_items: real.currItems, evictions: real.evictions }[k];
  return [mc.native, mc.wasm, mc.ts].every((m) => m[k] === r);
});
console.log(`total_malloced, items held and evictions equal to memcached's in all three builds: ${same.length === 3 ? 'yes' : `no (equal: ${same.join(', ') || 'none'})`}`);
console.log(`wasm (mc.ts) / native sets per second: ${(mc.ts.sets_per_sec / mc.native.sets_per_sec).toFixed(2)}`);

console.log('\nbench: redis-benchmark against glasskv server and redis-server...');
printRedisBenchmark(await redisBenchmark());
console.log(`(rates are wall-clock on a shared machine: 1-minute load average ${loadavg()[0].toFixed(1)} at the end of the run)`);

console.log('\nbench: what each command costs, redis-server\'s measured time against the engine\'s virtual time (costs.mjs)...');
spawnSync(process.execPath, [join(root, 'tests', 'bench', 'costs.mjs')], { stdio: 'inherit' });

console.log('\nbench: the slow-command lab against redis-server doing its steps (slow-command.mjs)...');
spawnSync(process.execPath, [join(root, 'tests', 'bench', 'slow-command.mjs')], { stdio: 'inherit' });

console.log('\nbench: one write reaching ten replicas, redis-server on this machine against the labs (replication.mjs)...');
spawnSync(process.execPath, [join(root, 'tests', 'bench', 'replication.mjs')], { stdio: 'inherit' });
