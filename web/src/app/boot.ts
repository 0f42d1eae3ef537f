// Starts the engine worker, the store and the lesson runner, restores the
// saved input log (and the open lesson, if any), and installs the test
// handle (window.glasskv) that end-to-end tests use.
import { Bridge } from '../../../wasm/bridge';
import type { SessionLog } from '../../../wasm/protocol';
import { initialLang, saveLang } from '../i18n';
import { LessonRunner } from '../lessons/runner';
import { freshLog, loadLog } from '../model/persist';
import { Store } from '../model/store';
import { LoopModel } from '../model/loop';
import type { TestHandle } from './testHandle';

function createWorker(): Worker {
  return new Worker(new URL('../../../wasm/worker.ts', import.meta.url), { type: 'module', name: 'glasskv-engine' });
}

interface Start {
  log: SessionLog;
  /** ?fresh: start empty, outside any lesson. */
  fresh: boolean;
  /** ?lesson=id: open that lesson once the engine is up. */
  lesson: string | null;
}

/** ?fresh starts an empty session; ?seed=N fixes its seed; ?lesson=id
 *  opens a lesson. All are then dropped from the address, so that
 *  reloading replays the session. */
function start(): Start {
  const url = new URL(location.href);
  const seedParam = url.searchParams.get('seed');
  const seed = seedParam !== null && /^\d+$/.test(seedParam) ? Number(seedParam) : undefined;
  const fresh = url.searchParams.has('fresh');
  const lesson = url.searchParams.get('lesson');
  if (fresh || seedParam !== null || lesson !== null) {
    for (const p of ['fresh', 'seed', 'lesson']) url.searchParams.delete(p);
    history.replaceState(null, '', url);
  }
  return { log: fresh ? freshLog(seed) : loadLog() ?? freshLog(seed), fresh, lesson };
}

export function createApp(): { store: Store; lessons: LessonRunner; loop: LoopModel } {
  const bridge = new Bridge(createWorker);
  const begin = start();
  const store = new Store(bridge, begin.log, initialLang());
  const lessons = new LessonRunner(store);
  const loop = new LoopModel(bridge, store);
  if (begin.fresh) lessons.forgetActive();
  store.subscribe(() => {
    const lang = store.getState().lang;
    if (document.documentElement.lang !== lang) {
      document.documentElement.lang = lang;
      saveLang(lang);
    }
  });
  const handle: TestHandle = {
    state: () => store.getState(),
    lesson: () => lessons.getState(),
    act: (action) => store.act(action),
    idle: () => store.idle(),
    trace: (after, max) => bridge.call({ type: 'trace', after, max }),
    loop: () => loop.getState(),
    viewsIdle: () => loop.idle(),
    seek: (t) => store.seek(t),
    timeline: (t0, t1, px, nodes) => bridge.call({ type: 'timeline', t0, t1, px, nodes }),
    slabs: (query) => store.slabs(query),
  };
  (window as unknown as { glasskv: TestHandle }).glasskv = handle;
  window.addEventListener('pagehide', () => store.saveNow());
  void store.boot().then(() => {
    lessons.reconcile();
    if (begin.lesson) return lessons.open(begin.lesson);
  });
  return { store, lessons, loop };
}
