// Offline use: the production build registers its service worker
// (web/offline/sw.js, written into dist/ by the build), which caches the
// app's files on the first load. Not in development, whose modules are
// served one by one and change all the time.
export function registerOffline(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  // Relative to the page, so the app works from any sub-path. Refused in
  // some contexts (a third-party iframe, private modes): the app runs the
  // same, only not offline.
  navigator.serviceWorker.register('./sw.js').catch(() => undefined);
}
