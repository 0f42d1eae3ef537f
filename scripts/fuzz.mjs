// The fuzzing campaign: libFuzzer harnesses over the engine's public API
// (tests/fuzz/fuzz_<target>.c), built with clang-14, AddressSanitizer and
// UndefinedBehaviorSanitizer.
//
//   node scripts/fuzz.mjs                     replay every committed corpus,
//                                             then fuzz each target briefly
//                                             (FUZZ_SECONDS, default 30),
//                                             as many at once as there are
//                                             CPUs
//   node scripts/fuzz.mjs <target> [seconds]  a long campaign on one target
//   node scripts/fuzz.mjs share [seconds]     the share-link fuzzer
//                                             (tests/fuzz/share.test.ts, on
//                                             the real .wasm; npm test runs
//                                             it for 30 s with Vitest)
//   node scripts/fuzz.mjs --coverage [work]   line coverage of the committed
//                                             corpora (or of what campaigns
//                                             here found) over the files they
//                                             exercise
//   node scripts/fuzz.mjs --merge <target>    minimizes what campaigns found
//                                             into the committed corpus
//
// The committed corpus (tests/fuzz/corpus/<target>/) is never written by a
// run: new inputs go to build/fuzz/work/<target>/, crashes to
// build/fuzz/crashes/. A crash fails the run and prints how to replay it;
// once fixed, copy the input into the committed corpus as a regression.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fuzzDir = join(root, 'tests', 'fuzz');
const build = join(root, 'build', 'fuzz');

/** The files (under engine/) whose line coverage --coverage reports, per
 *  target. */
const COVERED = {
  protocol: ['src/networking.c'],
  memcached: ['src/mc_proto.c', 'src/mc_options.c', 'src/mc_items.c', 'src/mc_slabs.c'],
  loader: ['src/aof_load.c', 'src/rdb.c', 'src/listpack.c', 'src/intset.c'],
  options: ['src/config.c', 'src/mc_options.c'],
  cli: ['cli/cliopts.c', 'cli/cliformat.c'],
  lua: ['src/script_lua.c', 'src/eval.c', 'src/functions.c', 'src/script.c'],
};

const targets = readdirSync(fuzzDir)
  .filter((f) => /^fuzz_\w+\.c$/.test(f))
  .map((f) => f.slice(5, -2))
  .sort();

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  return r.status === 0;
}

function make(kind) {
  if (!run('make', ['-s', '-C', 'engine', 'fuzz', `FUZZ=${kind}`, '-j2'])) {
    console.error(`fuzz: building the harnesses (FUZZ=${kind}) failed`);
    process.exit(1);
  }
}

function corpusOf(t) {
  return join(fuzzDir, 'corpus', t);
}

function flags(t) {
  const dict = join(fuzzDir, `${t}.dict`);
  const crashes = join(build, 'crashes');
  mkdirSync(crashes, { recursive: true });
  return [
    '-max_len=16384', '-rss_limit_mb=4096', '-timeout=25', '-print_final_stats=1',
    `-artifact_prefix=${crashes}/${t}-`,
    ...(existsSync(dict) ? [`-dict=${dict}`] : []),
  ];
}

/** The harness runs of target t: every input of the committed corpus once,
 *  then (with seconds) fuzzing for that long, starting from the committed
 *  corpus and what earlier runs on this machine found. Each is
 *  [what it says it does, its arguments]. */
function harnessRuns(t, seconds) {
  const out = [];
  const dir = corpusOf(t);
  if (existsSync(dir)) {
    out.push([`replaying ${readdirSync(dir).length} corpus inputs`, [...flags(t), '-runs=0', dir]]);
  }
  if (seconds !== undefined) {
    const work = join(build, 'work', t);
    mkdirSync(work, { recursive: true });
    if (existsSync(dir)) cpSync(dir, work, { recursive: true });
    out.push([`fuzzing for ${seconds} s`, [...flags(t), `-max_total_time=${seconds}`, work]]);
  }
  return out;
}

const crashHint = (t) => `fuzz: ${t} found a crash: see build/fuzz/crashes/${t}-*; ` +
  `replay it with build/fuzz/fuzz_${t} <file>`;

/** Replays t's corpus and fuzzes it, its output printed as it comes. */
function replayAndFuzz(t, seconds) {
  for (const [what, args] of harnessRuns(t, seconds)) {
    console.log(`fuzz: ${t}: ${what}`);
    if (!run(join(build, `fuzz_${t}`), args)) {
      if (what.startsWith('fuzzing')) console.error(crashHint(t));
      return false;
    }
  }
  return true;
}

/** The same, its output kept and printed in one piece when it ends (so
 *  that targets run side by side do not mix their lines); resolves with
 *  whether every run passed. */
async function replayAndFuzzQuietly(t, seconds) {
  let log = '';
  let ok = true;
  for (const [what, args] of harnessRuns(t, seconds)) {
    log += `fuzz: ${t}: ${what}\n`;
    ok = await new Promise((resolve) => {
      const child = spawn(join(build, `fuzz_${t}`), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (d) => { log += d; });
      child.stderr.on('data', (d) => { log += d; });
      child.on('error', (e) => { log += `${e.message}\n`; resolve(false); });
      child.on('close', (status) => resolve(status === 0));
    });
    if (!ok) {
      if (what.startsWith('fuzzing')) log += `${crashHint(t)}\n`;
      break;
    }
  }
  process.stdout.write(log);
  return ok;
}

/** Replays and fuzzes every target, as many at once as there are CPUs;
 *  resolves with the targets that failed. */
async function everyTarget(seconds) {
  const failed = [];
  const queue = [...targets];
  const lane = async () => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) {
      if (!(await replayAndFuzzQuietly(t, seconds))) failed.push(t);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), targets.length) }, lane));
  return failed.sort();
}

/** Names the failed targets and prints what they left in
 *  build/fuzz/crashes/ (crash, leak, timeout, out of memory), each input
 *  in hex, so that the end of a run's log is enough to replay it. */
function report(failed) {
  const crashes = join(build, 'crashes');
  console.error(`\nfuzz: failed: ${failed.join(', ')}`);
  for (const f of existsSync(crashes) ? readdirSync(crashes).sort() : []) {
    if (f.includes('-slow-unit-') || !failed.some((t) => f.startsWith(`${t}-`))) continue;
    const bytes = readFileSync(join(crashes, f));
    console.error(`fuzz: ${f} (${bytes.length} bytes): ` +
      bytes.subarray(0, 512).toString('hex') + (bytes.length > 512 ? '...' : ''));
  }
}

function coverage(work) {
  make('cov');
  const cov = join(root, 'build', 'fuzzcov');
  const raws = [];
  for (const t of targets) {
    const dir = work ? join(build, 'work', t) : corpusOf(t);
    if (!existsSync(dir)) continue;
    const raw = join(cov, `${t}.profraw`);
    rmSync(raw, { force: true });
    spawnSync(join(cov, `fuzz_${t}`), ['-runs=0', dir], {
      stdio: 'ignore', env: { ...process.env, LLVM_PROFILE_FILE: raw },
    });
    raws.push([t, raw]);
  }
  for (const [t, raw] of raws) {
    const data = join(cov, `${t}.profdata`);
    run('llvm-profdata-14', ['merge', '-sparse', raw, '-o', data]);
    const files = (COVERED[t] ?? []).map((f) => join(root, 'engine', f));
    console.log(`\nfuzz: line coverage of the ${t} corpus`);
    run('llvm-cov-14', ['report', join(cov, `fuzz_${t}`), `-instr-profile=${data}`, ...files]);
  }
}

const args = process.argv.slice(2);
if (args[0] === '--coverage') {
  coverage(args[1] === 'work');
} else if (args[0] === '--merge') {
  const t = args[1];
  make('1');
  mkdirSync(corpusOf(t), { recursive: true });
  process.exit(run(join(build, `fuzz_${t}`), [...flags(t), '-set_cover_merge=1', corpusOf(t), join(build, 'work', t)]) ? 0 : 1);
} else if (args[0] === 'share') {
  const seconds = Number(args[1] ?? 600);
  const ok = run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'tests/fuzz/share.test.ts'], {
    env: { ...process.env, FUZZ_SECONDS: String(seconds) },
  });
  process.exit(ok ? 0 : 1);
} else if (args.length) {
  const [t, secs = '600'] = args;
  if (!targets.includes(t)) {
    console.error(`fuzz: no target ${t} (targets: ${targets.join(', ')})`);
    process.exit(2);
  }
  make('1');
  process.exit(replayAndFuzz(t, Number(secs)) ? 0 : 1);
} else {
  make('1');
  const seconds = Number(process.env.FUZZ_SECONDS ?? 30);
  console.log(`fuzz: ${targets.length} targets, each replayed and fuzzed for ${seconds} s, ` +
    `${Math.min(availableParallelism(), targets.length)} at once`);
  const failed = await everyTarget(seconds);
  if (failed.length) report(failed);
  // (not process.exit: the targets' logs written to a pipe must drain first)
  process.exitCode = failed.length ? 1 : 0;
}
