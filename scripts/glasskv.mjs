// Runs the native glasskv command line: `npm run glasskv -- cli < script`,
// `npm run glasskv -- server --port 7000`. Brings it up to date first
// (make -C engine, quiet, instant when nothing changed), then runs it with
// this process's arguments, stdin and stdout, and exits with its status.
// A Ctrl-C in a terminal reaches the whole process group, glasskv too, so
// this process only waits for it to finish (a second SIGINT passed on would
// tell `glasskv server` to exit at once, unclean); SIGTERM, which is sent
// to one process, is passed on, so that the server shuts down cleanly (AOF
// flushed) whether it is stopped through npm or directly.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// GLASSKV_BUILD names another build directory (make's BUILD), for a build
// of one's own beside the shared one.
const build = process.env.GLASSKV_BUILD;
const bin = join(build ?? join(root, 'build', 'native'), 'glasskv');

{
  const args = ['-s', '-C', 'engine', ...(build ? [`BUILD=${build}`] : [])];
  const make = spawnSync('make', args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (make.status !== 0 || !existsSync(bin)) {
    console.error('glasskv: building the native engine failed (make -C engine)');
    process.exit(1);
  }
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {
  if (child.exitCode === null) child.kill('SIGTERM');
});
child.on('error', (err) => {
  console.error(`glasskv: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
