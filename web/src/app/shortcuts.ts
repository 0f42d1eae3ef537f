// Keyboard control of time, for presenting (and anyone): Space plays or
// pauses, → steps (the next event, or the lesson's next step), ← goes back
// (to before the last action, or the lesson's previous step), R rewinds
// to the start, U restores the future an action in the past set aside,
// ? shows the list. Keys typed into a field, or pressed on a
// control that uses them (Space on a button, the arrows on a slider or in
// the console's scrolled transcript), keep their usual meaning, and an
// open dialog keeps all of them.
import type { LessonRunner } from '../lessons/runner';
import type { Store } from '../model/store';
import type { Presenter } from './presenter';

export interface Shortcut {
  keys: string[];
  /** The i18n key of what it does. */
  what: 'keys.play' | 'keys.next' | 'keys.back' | 'keys.rewind' | 'keys.restore' | 'keys.help' | 'keys.present' | 'keys.close';
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Space'], what: 'keys.play' },
  { keys: ['→'], what: 'keys.next' },
  { keys: ['←'], what: 'keys.back' },
  { keys: ['R'], what: 'keys.rewind' },
  { keys: ['U'], what: 'keys.restore' },
  { keys: ['P'], what: 'keys.present' },
  { keys: ['?'], what: 'keys.help' },
  { keys: ['Esc'], what: 'keys.close' },
];

/** Typing targets: every key belongs to them. */
function isTyping(el: Element | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement) return !['button', 'checkbox', 'radio', 'submit', 'reset'].includes(el.type);
  return false;
}

/** Controls that Space already operates: a focused one keeps it (a
 *  button presses, a checkbox toggles, a select opens), and so do the ARIA
 *  widgets that behave the same way. */
const SPACE_CONTROLS = [
  'button', 'a[href]', 'input', 'select', 'summary',
  ...['tab', 'slider', 'button', 'checkbox', 'switch', 'radio', 'combobox', 'listbox', 'option', 'menuitem', 'spinbutton']
    .map((r) => `[role="${r}"]`),
].join(', ');

/** Controls that the arrows move within (a plain button or link does
 *  not: ← and → still step time when one has the focus, as after pressing
 *  Present). */
const ARROW_CONTROLS = [
  'input:not([type=button]):not([type=checkbox]):not([type=submit]):not([type=reset])', 'select',
  ...['tab', 'slider', 'radio', 'combobox', 'listbox', 'option', 'menuitem', 'spinbutton', 'scrollbar']
    .map((r) => `[role="${r}"]`),
].join(', ');

/** Widgets where typing a letter selects an item (type-ahead): R, P and ?
 *  belong to them. */
const TYPEAHEAD = ['listbox', 'option', 'combobox', 'menu', 'menuitem', 'tree', 'treeitem', 'grid']
  .map((r) => `[role="${r}"]`).join(', ');

/** A transcript people scroll with Space and the arrows (the console's). */
const SCROLLED = '[role="log"]';

function within(el: Element | null, selector: string): boolean {
  return el instanceof HTMLElement && el.closest(selector) !== null;
}

/** A modal dialog is open: its keys are its own (it closes on Escape). */
function modalOpen(): boolean {
  return document.querySelector('[aria-modal="true"]') !== null;
}

/** The virtual time just before the last action taken before `now`. */
function beforeLastAction(store: Store): number {
  const s = store.getState();
  const now = s.snapshot?.now ?? 0;
  const entries = s.log.entries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.action.kind !== 'advance' && e.t < now) return Math.max(0, e.t - 1);
  }
  return 0;
}

export function installShortcuts(store: Store, lessons: LessonRunner, presenter: Presenter): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target instanceof Element ? e.target : null;
    if (isTyping(target) || modalOpen()) return;
    const ready = store.getState().phase === 'ready';
    const playing = store.getState().snapshot?.playing ?? false;
    const inLesson = lessons.getState().active !== null;
    const ownsSpace = within(target, SPACE_CONTROLS) || within(target, SCROLLED);
    const ownsArrows = within(target, ARROW_CONTROLS) || within(target, SCROLLED);
    const ownsLetters = within(target, TYPEAHEAD);
    let handled = true;
    switch (e.key) {
      case ' ':
        if (ownsSpace) return;
        if (ready) void (playing ? store.pause() : store.play());
        break;
      case 'ArrowRight':
        if (ownsArrows) return;
        if (inLesson) void lessons.next();
        else if (ready && !playing) void store.act({ kind: 'step' });
        break;
      case 'ArrowLeft':
        if (ownsArrows) return;
        if (inLesson) void lessons.previous();
        else if (ready && !playing) void store.seek(beforeLastAction(store));
        break;
      case 'r':
      case 'R':
        if (ownsLetters) return;
        if (ready) void (playing ? store.pause() : Promise.resolve()).then(() => store.seek(0));
        break;
      case 'u':
      case 'U':
        if (ownsLetters) return;
        if (ready && store.getState().snapshot?.history.aside) {
          void (playing ? store.pause() : Promise.resolve()).then(() => store.restoreFuture());
        }
        break;
      case 'p':
      case 'P':
        if (ownsLetters) return;
        presenter.toggle();
        break;
      case '?':
        if (ownsLetters) return;
        presenter.setHelp(!presenter.getState().help);
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
