// Debian source packages, downloaded at build or test time into a cache
// directory of the repository's build/ (never committed). apt works through
// private lists, cache and sources directories, so /etc/apt is left alone:
// the deb-src stanza copies the URIs and Signed-By of the machine's own
// bookworm (or bookworm-security) stanza.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The stanzas of a deb822 sources file, as objects of their fields. */
function stanzas(text) {
  return text.split(/\n\s*\n/).map((block) => {
    const fields = {};
    for (const line of block.split('\n')) {
      const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
      if (m) fields[m[1]] = m[2].trim();
    }
    return fields;
  }).filter((f) => f.URIs);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
}

/**
 * Downloads the source packages `pkgs` of `suite` ('bookworm' or
 * 'bookworm-security') into dir, with apt's private state in dir/apt.
 * The files land in dir (the .dsc, the orig tarball, Debian's changes).
 */
export function downloadSources(pkgs, suite, dir) {
  const sources = stanzas(readFileSync('/etc/apt/sources.list.d/debian.sources', 'utf8'));
  const wanted = suite.endsWith('-security') ? /-security/ : /(^|\s)bookworm(\s|$)/;
  const stanza = sources.find((s) => wanted.test(s.Suites ?? ''));
  if (!stanza) throw new Error(`no stanza for ${suite} in debian.sources`);
  const apt = join(dir, 'apt');
  for (const d of ['lists/partial', 'cache/archives/partial', 'sources.list.d'])
    mkdirSync(join(apt, d), { recursive: true });
  writeFileSync(join(apt, 'sources.list.d', `${suite}-src.sources`), [
    'Types: deb-src',
    `URIs: ${stanza.URIs}`,
    `Suites: ${suite}`,
    'Components: main',
    `Signed-By: ${stanza['Signed-By']}`,
    '',
  ].join('\n'));
  const opts = ['-q', '-o', 'Dir::Etc::SourceList=/dev/null',
    '-o', `Dir::Etc::SourceParts=${join(apt, 'sources.list.d')}`,
    '-o', `Dir::State::Lists=${join(apt, 'lists')}`,
    '-o', `Dir::Cache=${join(apt, 'cache')}`];
  run('apt-get', [...opts, 'update']);
  run('apt-get', [...opts, 'source', '--download-only', ...pkgs], { cwd: dir });
}

/** Throws unless file's sha256 is hex. */
export function checkSha256(file, hex) {
  const got = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (got !== hex) throw new Error(`${file}: sha256 ${got}, expected ${hex}`);
}
