// Keyboard control of time, for presenting (and anyone): Space plays or
// pauses, → steps (the next event, or the lesson's next step), ← goes back
// (to before the last action, or the lesson's previous step), R rewinds
// to the start, U restores the future an action in the past set aside,
// ? shows the list. Keys typed into a field, or pressed on a
// control that uses them (Space on a button, the arrows on a slider or in
// the console's scrolled transcript), keep their usual meaning, and an
// open dialog keeps all of them. After a click, as in a video player, only
// text fields, selects, checkboxes and radio buttons keep their keys: a
// button just clicked does not take Space to press itself again (a second
// benchmark), a tab just clicked does not take the arrows. A control
// reached with the keyboard (Tab) keeps them all.
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

/** What keeps its keys even after a click: where one types, picks from
 *  a list, or ticks a box. A range slider is not among them: clicked, it
 *  has been dragged, and the keys go back to time. */
function keepsKeysAfterClick(el: Element | null): boolean {
  if (el instanceof HTMLInputElement && el.type === 'range') return false;
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) return true;
  return isTyping(el);
}

/** Remembers what the pointer last pressed, for as long as the focus it
 *  gave stays there (focus that moves any other way, by Tab or by the
 *  page, forgets it). */
class PointerFocus {
  private pressed: Element | null = null;
  private down = false;

  private readonly onDown = (e: PointerEvent) => {
    this.down = true;
    this.pressed = e.target instanceof Element ? e.target : null;
  };

  private readonly onUp = () => {
    this.down = false;
  };

  private readonly onFocus = () => {
    if (!this.down) this.pressed = null;
  };

  install(): () => void {
    window.addEventListener('pointerdown', this.onDown, true);
    window.addEventListener('pointerup', this.onUp, true);
    window.addEventListener('pointercancel', this.onUp, true);
    document.addEventListener('focusin', this.onFocus, true);
    return () => {
      window.removeEventListener('pointerdown', this.onDown, true);
      window.removeEventListener('pointerup', this.onUp, true);
      window.removeEventListener('pointercancel', this.onUp, true);
      document.removeEventListener('focusin', this.onFocus, true);
    };
  }

  /** el has the focus because the pointer pressed it (or inside it). */
  clicked(el: Element | null): boolean {
    return el !== null && this.pressed !== null && el.contains(this.pressed);
  }
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
  const pointer = new PointerFocus();
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target instanceof Element ? e.target : null;
    const clicked = pointer.clicked(target);
    if ((clicked ? keepsKeysAfterClick(target) : isTyping(target)) || modalOpen()) return;
    const ready = store.getState().phase === 'ready';
    const playing = store.getState().snapshot?.playing ?? false;
    const inLesson = lessons.getState().active !== null;
    const ownsSpace = !clicked && (within(target, SPACE_CONTROLS) || within(target, SCROLLED));
    const ownsArrows = !clicked && (within(target, ARROW_CONTROLS) || within(target, SCROLLED));
    const ownsLetters = !clicked && within(target, TYPEAHEAD);
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
        if (ready) void store.rewind();
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
  const uninstall = pointer.install();
  window.addEventListener('keydown', onKey);
  return () => {
    uninstall();
    window.removeEventListener('keydown', onKey);
  };
}
