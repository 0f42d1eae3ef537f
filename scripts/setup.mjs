// Installs what the project needs and is missing: Debian packages (the
// emscripten toolchain, Chromium, redis-server, redis-cli, redis-check-aof,
// redis-benchmark, tcl for Redis's own test suite, memcached, a C compiler,
// clang-14 with libFuzzer for the fuzz harnesses, a Korean font)
// and the npm packages. Quiet and fast when everything is already
// there.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// command on PATH -> Debian package that provides it
const needs = [
  ['cc', 'gcc'], ['make', 'make'], ['emcc', 'emscripten'],
  ['chromium', 'chromium'], ['redis-server', 'redis-server'],
  ['redis-cli', 'redis-tools'], ['redis-check-aof', 'redis-tools'],
  ['redis-benchmark', 'redis-tools'], ['tclsh', 'tcl'],
  ['memcached', 'memcached'],
  ['clang-14', 'clang-14'], ['llvm-profdata-14', 'llvm-14'],
];

// libFuzzer's runtime, which clang-14 links for -fsanitize=fuzzer.
function hasFuzzerRuntime() {
  const dir = '/usr/lib/llvm-14/lib/clang';
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((v) =>
    existsSync(join(dir, v, 'lib', 'linux', 'libclang_rt.fuzzer-x86_64.a')));
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  return r.status === 0;
}

function aptInstall(pkgs) {
  if (process.getuid && process.getuid() !== 0) {
    console.error(`setup: missing Debian packages: ${pkgs.join(' ')}\n` +
      `setup: install them with: sudo apt-get install -y ${pkgs.join(' ')}`);
    process.exit(1);
  }
  console.log(`setup: installing Debian packages: ${pkgs.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-q'], { env });
  // An install can fail once with "cannot access archive"; the retry works.
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...pkgs], { env })) return;
    console.log(`setup: apt-get install failed (attempt ${attempt}), retrying`);
  }
  console.error('setup: could not install Debian packages');
  process.exit(1);
}

// A font with Hangul: without one, Chromium draws the Korean interface and
// lessons as empty boxes (in the end-to-end tests' screenshots too). Any
// installed Korean font will do; Nanum Gothic is Debian's smallest.
function hasKoreanFont() {
  const r = spawnSync('fc-list', [':lang=ko', 'family'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

const missing = needs.filter(([cmd]) => !has(cmd)).map(([, pkg]) => pkg);
if (!hasFuzzerRuntime()) missing.push('libclang-rt-14-dev');
if (!hasKoreanFont()) missing.push('fontconfig', 'fonts-nanum');
if (missing.length) aptInstall([...new Set(missing)]);

// npm ci when node_modules is missing or older than the lockfile. Not when
// node_modules is a link to another checkout's packages (a git worktree
// sharing them): npm ci would empty that directory through the link, under
// every checkout using it, before putting a directory of its own here.
const lock = join(root, 'package-lock.json');
const modules = join(root, 'node_modules');
const stamp = join(modules, '.package-lock.json');
if (!existsSync(stamp) || statSync(stamp).mtimeMs < statSync(lock).mtimeMs) {
  if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) {
    console.log(`setup: node_modules links to ${realpathSync(modules)}; its npm packages are installed there`);
  } else {
    console.log('setup: installing npm packages (npm ci)');
    if (!run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root })) process.exit(1);
  }
}
try {
  execFileSync('emcc', ['--version'], { stdio: 'ignore', env: { ...process.env, EMSDK_PYTHON: '/usr/bin/python3' } });
} catch {
  console.error('setup: emcc is installed but does not run');
  process.exit(1);
}
