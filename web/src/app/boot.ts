// Starts the engine worker, the store and the lesson runner, restores the
// saved input log (and the open lesson, if any) or opens the state a
// shared link carries, and installs the test handle (window.glasskv) that
// end-to-end tests use.
import { Bridge } from '../../../wasm/bridge';
import type { SessionLog } from '../../../wasm/protocol';
import { initialLang, saveLang } from '../i18n';
import { LessonRunner } from '../lessons/runner';
import { emptySaved } from '../lessons/progress';
import { freshLog, loadLog, setPersistence } from '../model/persist';
import { fragmentOf } from '../share/codec';
import { ShareModel } from '../share/model';
import { pageMode, type PageMode } from './mode';
import { offerWelcome, rememberWelcomed, welcomed } from './guide';
import { setInspected, setPane } from './pane';
import { Presenter } from './presenter';
import { installShortcuts } from './shortcuts';
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
  /** ?seed=N was given. */
  seeded: boolean;
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
  return { log: fresh ? freshLog(seed) : loadLog() ?? freshLog(seed), fresh, lesson, seeded: seedParam !== null };
}

export interface App {
  store: Store;
  lessons: LessonRunner;
  loop: LoopModel;
  share: ShareModel;
  presenter: Presenter;
  mode: PageMode;
}

export function createApp(): App {
  const mode = pageMode();
  // An embed keeps nothing: not the session, not the language, not the pane,
  // and it inspects the key its link names, not the reader's last one.
  if (mode.embed) {
    setPersistence(false);
    setPane(mode.view, false);
    setInspected(null, false);
  }
  const bridge = new Bridge(createWorker);
  const begin = start();
  const store = new Store(bridge, begin.log, mode.lang ?? initialLang());
  const lessons = new LessonRunner(store, mode.embed ? emptySaved() : undefined);
  const loop = new LoopModel(bridge, store);
  const share = new ShareModel(store, lessons, mode.embed);
  const presenter = new Presenter(mode.present);
  if (begin.fresh && !mode.embed) lessons.forgetActive();
  // A first visit to the plain page is welcomed; one that came with a
  // purpose (a lesson's or a shared link, an address asking for a fresh
  // session or presenter mode) is not, and is not welcomed later either.
  if (!mode.embed && !welcomed()) {
    const purposeful = begin.fresh || begin.seeded || begin.lesson !== null || mode.present
      || fragmentOf(location.hash) !== null;
    if (purposeful) rememberWelcomed();
    else offerWelcome();
  }
  store.subscribe(() => {
    const lang = store.getState().lang;
    if (document.documentElement.lang !== lang) {
      document.documentElement.lang = lang;
      if (!mode.embed) saveLang(lang);
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
    aofView: () => store.aofView(),
    inspect: (key) => store.inspect(key),
    digest: () => bridge.call({ type: 'digest' }),
    shareLink: async () => (await share.link()).url,
    exportText: () => share.fileText(),
    share: () => share.getState(),
    presenter: () => presenter.getState(),
  };
  (window as unknown as { glasskv: TestHandle }).glasskv = handle;
  window.addEventListener('pagehide', () => store.saveNow());
  installShortcuts(store, lessons, presenter);
  // A link pasted into the address bar of this tab changes only the
  // fragment: no reload, so it is opened here.
  window.addEventListener('hashchange', () => {
    const fragment = fragmentOf(location.hash);
    if (fragment === null) return;
    if (!mode.embed) history.replaceState(null, '', location.pathname + location.search);
    void share.openFragment(fragment);
  });
  void (async () => {
    const fragment = fragmentOf(location.hash);
    if (fragment !== null) {
      // The full app saves the opened state as its session, so the
      // fragment goes: a reload replays the session, not the link again.
      // An embed saves nothing and keeps it.
      if (!mode.embed) history.replaceState(null, '', location.pathname + location.search);
      const opened = await share.openFragment(fragment);
      if (opened && mode.autoplay) await store.play();
      // A link that did not replay has already brought the reader's
      // session back; one refused before booting has not.
      if (opened || store.getState().snapshot !== null) return;
    }
    await store.boot();
    if (!mode.embed) {
      lessons.reconcile();
      if (begin.lesson) await lessons.open(begin.lesson);
    }
    if (mode.autoplay) await store.play();
  })();
  return { store, lessons, loop, share, presenter, mode };
}
