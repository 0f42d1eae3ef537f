// Lesson progress in localStorage: which lesson is open, where each lesson
// stands (step, blocks run, answers given), and the sandbox session that
// was put aside when a lesson opened, so leaving the lesson brings it back.
import type { SessionConfig, SessionLog } from '../../../wasm/protocol';

const STORAGE_KEY = 'glasskv.lessons.v1';
/** The progress a shared lesson replaced, kept with the session put aside. */
const KEPT_KEY = 'glasskv.lessons.kept.v1';

export interface Answer {
  given: string;
  /** What the engine said, as shown. */
  actual: string;
  correct: boolean;
}

export interface LessonProgress {
  step: number;
  /** How many of the current step's click blocks ran, in order. */
  ran: number;
  /** Steps whose blocks were all run (indexes). */
  completed: number[];
  /** Answers by predict block key. */
  answers: Record<string, Answer>;
  /** The scenario's configuration, fixed when the lesson was first opened. */
  config: SessionConfig;
}

export interface SavedLessons {
  active: string | null;
  lessons: Record<string, LessonProgress>;
  /** The sandbox's log while a lesson is open. */
  sandbox: SessionLog | null;
}

export function emptySaved(): SavedLessons {
  return { active: null, lessons: {}, sandbox: null };
}

function isProgress(p: unknown): p is LessonProgress {
  const o = p as LessonProgress;
  return typeof o === 'object' && o !== null && Number.isInteger(o.step) && Number.isInteger(o.ran)
    && Array.isArray(o.completed) && typeof o.answers === 'object' && o.answers !== null
    && typeof o.config?.seed === 'number' && typeof o.config.unixMsAtZero === 'number';
}

export function loadSaved(): SavedLessons {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return emptySaved();
    const s = JSON.parse(raw) as SavedLessons;
    const lessons: Record<string, LessonProgress> = {};
    for (const [id, p] of Object.entries(s?.lessons ?? {})) if (isProgress(p)) lessons[id] = p;
    return {
      active: typeof s.active === 'string' ? s.active : null,
      lessons,
      sandbox: s.sandbox && s.sandbox.version === 1 && Array.isArray(s.sandbox.entries) ? s.sandbox : null,
    };
  } catch {
    return emptySaved();
  }
}

export function storeSaved(s: SavedLessons): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  } catch {
    // Storage full or unavailable: progress lasts as long as the page.
  }
}

/** Lesson progress replaced by opening a link or a file, by lesson id
 *  (null: the lesson had never been opened), to restore with the session
 *  put aside. */
export type KeptProgress = Record<string, LessonProgress | null>;

export function loadKept(): KeptProgress {
  try {
    const raw = localStorage.getItem(KEPT_KEY);
    const o = raw ? (JSON.parse(raw) as unknown) : null;
    if (typeof o !== 'object' || o === null) return {};
    const out: KeptProgress = {};
    for (const [id, p] of Object.entries(o)) if (p === null || isProgress(p)) out[id] = p as LessonProgress | null;
    return out;
  } catch {
    return {};
  }
}

/** False if storage refused it. */
export function storeKept(k: KeptProgress): boolean {
  try {
    if (Object.keys(k).length === 0) localStorage.removeItem(KEPT_KEY);
    else localStorage.setItem(KEPT_KEY, JSON.stringify(k));
    return true;
  } catch {
    return false;
  }
}
