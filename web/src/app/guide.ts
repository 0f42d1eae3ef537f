// The first visit's guide, outside React: a welcome that offers the lessons
// and a tour of the page, shown once (remembered in localStorage), and the
// tour itself, which anyone can take again from the lesson list.
export interface GuideState {
  /** The welcome dialog is open. */
  welcome: boolean;
  /** The tour's current stop, or null when no tour runs. */
  tour: number | null;
}

const STORAGE_KEY = 'glasskv.welcomed';

let state: GuideState = { welcome: false, tour: null };
const listeners = new Set<() => void>();

function set(patch: Partial<GuideState>): void {
  state = { ...state, ...patch };
  for (const fn of listeners) fn();
}

export function getGuide(): GuideState {
  return state;
}

export function subscribeGuide(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The reader has been welcomed (or came with a purpose: a lesson's or a
 *  shared link, a fresh session asked for by address). */
export function welcomed(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) !== null;
  } catch {
    // No storage: welcome on every visit rather than never.
    return false;
  }
}

export function rememberWelcomed(): void {
  try {
    localStorage.setItem(STORAGE_KEY, '1');
  } catch {
    // Not kept; the welcome shows again next time.
  }
}

/** Opens the welcome (on a first visit). */
export function offerWelcome(): void {
  set({ welcome: true });
}

/** Closes the welcome, for good. */
export function closeWelcome(): void {
  rememberWelcomed();
  set({ welcome: false });
}

export function startTour(): void {
  rememberWelcomed();
  set({ welcome: false, tour: 0 });
}

export function tourTo(stop: number): void {
  set({ tour: stop });
}

export function endTour(): void {
  set({ tour: null });
}
