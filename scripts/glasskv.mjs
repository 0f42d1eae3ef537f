// Runs the native glasskv command line: `npm run glasskv -- cli < script`.
// Brings it up to date first (make -C engine, quiet, instant when nothing
// changed), then runs it with this process's arguments, stdin and stdout,
// and exits with its status.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'build', 'native', 'glasskv');

{
  const make = spawnSync('make', ['-s', '-C', 'engine'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (make.status !== 0 || !existsSync(bin)) {
    console.error('glasskv: building the native engine failed (make -C engine)');
    process.exit(1);
  }
}

const run = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  console.error(`glasskv: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
