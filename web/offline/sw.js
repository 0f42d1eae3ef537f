// glasskv's service worker: the app works offline once loaded, from any
// static host and any sub-path. The build (vite.config.ts, offlinePlugin)
// fills in the two constants below: the list of the app's files (the HTML,
// the JS and CSS, the worker script, the .wasm; the lessons are inside the
// JS) and a cache name made from their contents, so a new build installs a
// new cache and deletes the old one.
const CACHE = '__GK_CACHE__';
const FILES = __GK_FILES__;
const PREFIX = 'glasskv-';

self.addEventListener('install', (event) => {
  // Paths are relative to this script, so the app can live under /any/dir/.
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
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
  // Everything else has a content hash in its name: the cache first.
  event.respondWith(caches.open(CACHE).then(async (cache) => (await cache.match(req)) ?? fetch(req)));
});
