// glasskv's service worker: the app works offline once loaded, from any
// static host and any sub-path. The build (vite.config.ts, offlinePlugin)
// fills in the two constants below: the list of the app's files (the HTML,
// the JS and CSS, the worker script, the .wasm; the lessons are inside the
// JS) and a cache name made from their contents, so a new build installs a
// new cache.
//
// The new worker takes over open tabs at once (skipWaiting, clients.claim),
// but a tab opened on the previous build still runs that build's code: if
// its engine worker crashes, it starts that build's hashed worker script
// and .wasm again, which the new build does not have. So the previous
// build's cache is kept, and files are looked up in every cache kept: the
// two latest builds, in the order they were activated (BUILDS lists them).
const CACHE = '__GK_CACHE__';
const FILES = __GK_FILES__;
const PREFIX = 'glasskv-';
/** Where the names of the builds kept are listed, oldest first. */
const BUILDS = 'glasskv-builds';
const BUILDS_KEY = './.glasskv-builds';
/** Builds whose files are kept: this one and the one before. */
const KEEP = 2;

self.addEventListener('install', (event) => {
  // Paths are relative to this script, so the app can live under /any/dir/.
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

async function readBuilds() {
  const r = await (await caches.open(BUILDS)).match(BUILDS_KEY);
  if (!r) return [];
  try {
    const list = await r.json();
    return Array.isArray(list) ? list.filter((n) => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const present = (await caches.keys()).filter((n) => n.startsWith(PREFIX) && n !== BUILDS);
    let order = (await readBuilds()).filter((n) => present.includes(n));
    // A cache left by a worker from before the list existed: the build
    // before this one, as far as anyone can tell.
    if (!order.length) order = present.filter((n) => n !== CACHE).slice(-1);
    const keep = [...order.filter((n) => n !== CACHE), CACHE].slice(-KEEP);
    for (const name of present) if (!keep.includes(name)) await caches.delete(name);
    await (await caches.open(BUILDS)).put(BUILDS_KEY, new Response(JSON.stringify(keep)));
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    // The page: the network first, so that a new build is seen at once;
    // offline, the cached page (its query string, ?embed=1 and the like,
    // is read by the app, not by the server).
    event.respondWith(fetch(req).catch(async () => {
      const cache = await caches.open(CACHE);
      return (await cache.match(req, { ignoreSearch: true })) ?? (await cache.match('./')) ?? Response.error();
    }));
    return;
  }
  // Everything else has a content hash in its name: the cache first, this
  // build's, else the previous build's (a tab still running it).
  event.respondWith((async () => {
    const own = await (await caches.open(CACHE)).match(req);
    return own ?? (await caches.match(req)) ?? fetch(req);
  })());
});
