// What the Slabs pane looks at, outside React so that the console (typing
// a set), the class table and the pages can share it: the selected class,
// the first page shown, and the item the console's line describes.
import type { TypedItem } from './model';

export interface SlabsSelection {
  cls: number;
  from: number;
  /** The item of the set line being typed, or of the quick-set form. */
  typed: TypedItem | null;
}

let current: SlabsSelection = { cls: 1, from: 0, typed: null };
const listeners = new Set<() => void>();

export function getSelection(): SlabsSelection {
  return current;
}

export function subscribeSelection(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function set(patch: Partial<SlabsSelection>): void {
  current = { ...current, ...patch };
  for (const fn of listeners) fn();
}

/** Whether a class was picked by hand (then the pages view keeps it). */
let chosen = false;

export function selectClass(cls: number): void {
  chosen = true;
  if (cls !== current.cls) set({ cls, from: 0 });
}

/** Shows class cls, unless a class was picked by hand: the pages view
 *  follows the first class that holds pages until the learner picks one. */
export function showClassUnlessChosen(cls: number): void {
  if (!chosen && cls !== current.cls) set({ cls, from: 0 });
}

export function showPagesFrom(from: number): void {
  if (from !== current.from) set({ from: Math.max(0, from) });
}

export function setTyped(typed: TypedItem | null): void {
  const t = current.typed;
  if (t === typed || (t && typed && t.nkey === typed.nkey && t.flags === typed.flags && t.vlen === typed.vlen)) return;
  set({ typed });
}
