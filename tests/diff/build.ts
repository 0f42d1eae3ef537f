// The native glasskv binary the differential tests run, brought up to date
// once before any test file starts (vitest's globalSetup), so that a build
// directory left from older sources is never what gets compared.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// GLASSKV_BUILD: a build directory of one's own (make -C engine BUILD=...),
// as tests/server/servers.mjs reads it.
export const buildDir = process.env.GLASSKV_BUILD ?? join(root, 'build', 'native');
export const glasskv = join(buildDir, 'glasskv');

export default function setup(): void {
  const make = spawnSync('make', ['-s', '-C', 'engine', `BUILD=${buildDir}`],
    { cwd: root, stdio: 'inherit' });
  if (make.status !== 0) throw new Error('make -C engine failed');
}
