// Which pane the views column shows, outside React so that the header's
// tabs and the layout can both follow it.
export type Pane = 'loop' | 'keys' | 'aof' | 'slabs';
export const PANES: readonly Pane[] = ['loop', 'keys', 'aof', 'slabs'];

const STORAGE_KEY = 'glasskv.pane';

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

let current: Pane = initialPane();
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
