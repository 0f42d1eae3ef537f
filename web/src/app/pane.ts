// Which pane the views column shows, and the key the inspector follows,
// outside React so that the header's tabs, the layout, the hash table's
// key lists and sharing can all follow them.
export type Pane = 'loop' | 'keys' | 'inspect' | 'aof' | 'network' | 'slabs';
export const PANES: readonly Pane[] = ['loop', 'keys', 'inspect', 'aof', 'network', 'slabs'];

const STORAGE_KEY = 'glasskv.pane';
const KEY_STORAGE_KEY = 'glasskv.inspect';
/** The longest key name the inspector is asked about (a longer one is
 *  cut): the page's links and storage carry it. */
export const INSPECT_KEY_MAX = 4096;

/** The pane chosen last (kept across reloads), the event loop at first. */
function initialPane(): Pane {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if ((PANES as readonly string[]).includes(saved ?? '')) return saved as Pane;
  } catch {
    // Storage may be unavailable: start on the event loop.
  }
  return 'loop';
}

/** The key inspected last (kept across reloads), none at first. */
function initialKey(): string | null {
  try {
    const saved = localStorage.getItem(KEY_STORAGE_KEY);
    if (saved !== null && saved !== '' && saved.length <= INSPECT_KEY_MAX) return saved;
  } catch {
    // Storage may be unavailable: no key yet.
  }
  return null;
}

let current: Pane = initialPane();
let inspected: string | null = initialKey();
const listeners = new Set<() => void>();

export function getPane(): Pane {
  return current;
}

/** Shows pane p; `remember` false leaves the saved choice alone (an
 *  embedded page, a shared link's pane). */
export function setPane(p: Pane, remember = true): void {
  if (p === current) return;
  current = p;
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, p);
    } catch {
      // Not kept; the choice still holds for this page.
    }
  }
  for (const fn of listeners) fn();
}

/** The key the inspector follows, or null. */
export function getInspected(): string | null {
  return inspected;
}

/** Makes the inspector follow `key` (null: none); `remember` as for
 *  setPane. */
export function setInspected(key: string | null, remember = true): void {
  const k = key === null || key === '' ? null : key.slice(0, INSPECT_KEY_MAX);
  if (k === inspected) return;
  inspected = k;
  if (remember) {
    try {
      if (k === null) localStorage.removeItem(KEY_STORAGE_KEY);
      else localStorage.setItem(KEY_STORAGE_KEY, k);
    } catch {
      // Not kept; the choice still holds for this page.
    }
  }
  for (const fn of listeners) fn();
}

/** Opens `key` in the inspector: the pane shows it. */
export function inspectKey(key: string, remember = true): void {
  setInspected(key, remember);
  setPane('inspect', remember);
}

export function subscribePane(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The pane that shows a lesson's views: the first of them that has one
 *  (the hash table and the walker are the keyspace pane), else the event
 *  loop. */
export function paneOfViews(views: readonly string[]): Pane {
  for (const v of views) {
    if (v === 'ht' || v === 'scan') return 'keys';
    if ((PANES as readonly string[]).includes(v)) return v as Pane;
  }
  return 'loop';
}
