// `npm run build` gives a self-contained dist/: served by a plain static
// server from a sub-path, with no server side, and offline once loaded
// (the service worker, web/offline/sw.js).
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const SUB = '/some/dir/';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.png': 'image/png', '.json': 'application/json',
};

/** A static file server, nothing more: dist/ under SUB, 404 elsewhere.
 *  `swCache` makes it serve sw.js as a later build would (another cache
 *  name); paths in `gone` answer 404, as files a later build no longer has. */
class StaticHost {
  readonly misses: string[] = [];
  swCache: string | null = null;
  readonly gone = new Set<string>();
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.serve(req.url ?? '/', res));
    // Port 0: the system picks a free one, so no other checkout's port is taken.
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${SUB}`;
  }

  private async serve(url: string, res: import('node:http').ServerResponse): Promise<void> {
    const path = decodeURIComponent(url.split('?')[0]);
    const rel = path.startsWith(SUB) ? normalize(path.slice(SUB.length) || 'index.html') : null;
    if (rel === null || rel.startsWith('..') || this.gone.has(path)) return this.miss(path, res);
    try {
      let body: Buffer | string = await readFile(join(DIST, rel.endsWith('/') ? `${rel}index.html` : rel));
      if (rel === 'sw.js' && this.swCache) {
        // The later build's list of files leaves out those it no longer has.
        body = body.toString().replace(/const CACHE = 'glasskv-\w+'/, `const CACHE = '${this.swCache}'`)
          .replace(/const FILES = (\[.*\]);/, (_, list: string) => {
            const files = (JSON.parse(list) as string[]).filter((f) => !this.gone.has(new URL(f, `http://x${SUB}`).pathname));
            return `const FILES = ${JSON.stringify(files)};`;
          });
      }
      res.writeHead(200, { 'content-type': TYPES[extname(rel)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(body);
    } catch {
      this.miss(path, res);
    }
  }

  private miss(path: string, res: import('node:http').ServerResponse): void {
    this.misses.push(path);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

test.describe('the static build', () => {
  const host = new StaticHost();
  let base = '';
  test.beforeAll(async () => {
    base = await host.start();
  });
  test.afterAll(async () => {
    await host.stop();
  });

  test('runs from a sub-path of a plain static server, then offline once loaded; a new build keeps the previous build\'s files for the tabs still running it', async ({ page, context }) => {
    const app = new SandboxPage(page);
    await page.goto(`${base}?fresh&seed=4`);
    await app.waitReady();
    expect(await app.console.reply('SET greeting hello')).toBe('OK');
    // The service worker has cached the app's files once it is active.
    const cached = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      // (glasskv-builds lists the builds kept, in order.)
      const names = (await caches.keys()).filter((n) => n !== 'glasskv-builds');
      const keys = (await (await caches.open(names[0])).keys()).map((r) => new URL(r.url).pathname);
      return { scope: new URL(reg.scope).pathname, names, keys };
    });
    expect(cached.scope).toBe(SUB);
    expect(cached.names).toHaveLength(1);
    expect(cached.names[0]).toMatch(/^glasskv-[0-9a-f]{16}$/);
    for (const ext of ['.js', '.css', '.wasm']) expect(cached.keys.some((k) => k.endsWith(ext))).toBe(true);
    expect(cached.keys).toContain(`${SUB}index.html`);
    expect(cached.keys.filter((k) => /worker-.*\.js$/.test(k))).toHaveLength(1);
    expect(host.misses).toEqual([]);

    await context.setOffline(true);
    await page.reload();
    await app.waitReady();
    // The session was replayed from the log kept in the page's storage.
    expect(await app.console.reply('GET greeting')).toBe('"hello"');
    expect(await app.console.reply('INCR visits')).toBe('(integer) 1');
    await app.screenshot('offline-reloaded');
    await context.setOffline(false);

    // A later build: its worker installs its own cache and takes over this
    // tab, which still runs the first build. The first build's hashed files
    // are gone from the server, yet this tab can still start its engine
    // worker again (after a crash): the first build's cache is kept.
    const first = cached.names[0];
    const workerFiles = cached.keys.filter((k) => /worker-.*\.js$|\.wasm$/.test(k));
    expect(workerFiles.length).toBeGreaterThanOrEqual(2);
    const nextBuild = async (name: string) => {
      host.swCache = name;
      return page.evaluate(async () => {
        // The new worker takes this tab over as it starts activating; its
        // caches are sorted out once it is activated.
        const claimed = new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
        const reg = await navigator.serviceWorker.getRegistration();
        await reg!.update();
        await Promise.race([claimed, new Promise((r) => setTimeout(r, 15_000))]);
        const w = reg!.active;
        if (w && w.state !== 'activated') {
          await new Promise<void>((r) => w.addEventListener('statechange', () => w.state === 'activated' && r()));
        }
        return (await caches.keys()).filter((n) => n !== 'glasskv-builds').sort();
      });
    };
    for (const f of workerFiles) host.gone.add(f);
    expect(await nextBuild('glasskv-nextbuild')).toEqual([first, 'glasskv-nextbuild'].sort());
    // The new build's worker controls this tab and has none of these files.
    expect(await page.evaluate(async (files) => {
      const mine = await caches.open('glasskv-nextbuild');
      return Promise.all(files.map(async (f) => (await mine.match(f)) === undefined));
    }, workerFiles)).toEqual(workerFiles.map(() => true));
    const served = await page.evaluate(async (files) => Promise.all(files.map(async (f) => (await fetch(f)).status)), workerFiles);
    expect(served).toEqual(workerFiles.map(() => 200));
    // Only the two latest builds are kept: a third drops the first.
    expect(await nextBuild('glasskv-thirdbuild')).toEqual(['glasskv-nextbuild', 'glasskv-thirdbuild']);
    expect(host.misses).toEqual([]);
    expect(app.errors).toEqual([]);
  });
});
