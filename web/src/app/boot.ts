// Starts the engine worker and the store, restores the saved input log,
// and installs the test handle (window.glasskv) that end-to-end tests use.
import { Bridge } from '../../../wasm/bridge';
import type { SessionLog } from '../../../wasm/protocol';
import { initialLang, saveLang } from '../i18n';
import { freshLog, loadLog } from '../model/persist';
import { Store } from '../model/store';
import type { TestHandle } from './testHandle';

function createWorker(): Worker {
  return new Worker(new URL('../../../wasm/worker.ts', import.meta.url), { type: 'module', name: 'glasskv-engine' });
}

/** ?fresh starts an empty session; ?seed=N fixes its seed. Both are then
 *  dropped from the address, so that reloading replays the session. */
function startingLog(): SessionLog {
  const url = new URL(location.href);
  const seedParam = url.searchParams.get('seed');
  const seed = seedParam !== null && /^\d+$/.test(seedParam) ? Number(seedParam) : undefined;
  const fresh = url.searchParams.has('fresh');
  if (fresh || seedParam !== null) {
    url.searchParams.delete('fresh');
    url.searchParams.delete('seed');
    history.replaceState(null, '', url);
  }
  if (fresh) return freshLog(seed);
  return loadLog() ?? freshLog(seed);
}

export function createApp(): Store {
  const bridge = new Bridge(createWorker);
  const store = new Store(bridge, startingLog(), initialLang());
  store.subscribe(() => {
    const lang = store.getState().lang;
    if (document.documentElement.lang !== lang) {
      document.documentElement.lang = lang;
      saveLang(lang);
    }
  });
  const handle: TestHandle = {
    state: () => store.getState(),
    act: (action) => store.act(action),
    idle: () => store.idle(),
    trace: (after, max) => bridge.call({ type: 'trace', after, max }),
  };
  (window as unknown as { glasskv: TestHandle }).glasskv = handle;
  window.addEventListener('pagehide', () => store.saveNow());
  void store.boot();
  return store;
}
