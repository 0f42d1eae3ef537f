// The input log in localStorage: written as it grows, so that a reload or
// a crash of the worker loses nothing; read back at start and replayed.
import type { AsideLog, LogEntry, SessionConfig, SessionLog } from '../../../wasm/protocol';

const STORAGE_KEY = 'glasskv.session.v1';
/** The session put aside when a shared link or a file was opened. */
const PREVIOUS_KEY = 'glasskv.session.previous.v1';
/** A digest of the last log opened from a link or a file: while the
 *  session is still exactly that log, it is not the reader's own work and
 *  must not take the place of what was put aside. */
const OPENED_KEY = 'glasskv.session.opened.v1';
/** The futures set aside by forks, per session (its configuration). */
const ASIDES_KEY = 'glasskv.session.asides.v1';
/** Sessions whose futures are kept at once (the latest ones). */
const ASIDE_SESSIONS = 4;

// An embedded page (an iframe on someone's course page) shares the site's
// storage with the full app: it must neither read nor overwrite the
// session the reader keeps there.
let persistent = true;

/** Turns saving and loading of the session off (embed mode) or on. */
export function setPersistence(on: boolean): void {
  persistent = on;
}
/** Default heap limit for the engine: growing commands get -OOM past it. */
const HEAP_LIMIT = 1024 * 1024 * 1024;

export function freshConfig(seed?: number): SessionConfig {
  let s = seed;
  if (s === undefined) {
    const words = new Uint32Array(1);
    crypto.getRandomValues(words);
    s = words[0];
  }
  return { seed: s, unixMsAtZero: Date.now(), heapLimit: HEAP_LIMIT };
}

export function freshLog(seed?: number): SessionLog {
  return { version: 1, config: freshConfig(seed), entries: [] };
}

function isEntry(e: unknown): e is LogEntry {
  if (typeof e !== 'object' || e === null) return false;
  const o = e as { t?: unknown; action?: { kind?: unknown } };
  return typeof o.t === 'number' && typeof o.action === 'object' && o.action !== null
    && typeof o.action.kind === 'string';
}

function readLog(key: string): SessionLog | null {
  if (!persistent) return null;
  try {
    const raw = localStorage.getItem(key);
    if (!raw) return null;
    const log = JSON.parse(raw) as SessionLog;
    const c = log?.config;
    if (log?.version !== 1 || typeof c?.seed !== 'number' || typeof c.unixMsAtZero !== 'number') return null;
    if (!Array.isArray(log.entries) || !log.entries.every(isEntry)) return null;
    return log;
  } catch {
    return null;
  }
}

/** The saved log, or null when there is none or it cannot be read. */
export function loadLog(): SessionLog | null {
  return readLog(STORAGE_KEY);
}

/** The session put aside by the last link or file opened, if any. */
export function loadPrevious(): SessionLog | null {
  return readLog(PREVIOUS_KEY);
}

function writeLog(key: string, log: SessionLog): boolean {
  if (!persistent) return false;
  try {
    localStorage.setItem(key, JSON.stringify(log));
    return true;
  } catch {
    return false;
  }
}

export function saveLog(log: SessionLog): boolean {
  return writeLog(STORAGE_KEY, log);
}

/** Keeps `log` aside, to be restored later (replaces what was kept). */
export function savePrevious(log: SessionLog): boolean {
  return writeLog(PREVIOUS_KEY, log);
}

export function clearPrevious(): void {
  remove(PREVIOUS_KEY);
}

interface AsidesRecord {
  session: string;
  asides: AsideLog[];
}

/** Names a session by its configuration (a new session has a new one). */
function sessionKey(c: SessionConfig): string {
  return `${c.seed}:${c.unixMsAtZero}:${c.heapLimit}`;
}

function isAside(a: unknown): a is AsideLog {
  if (typeof a !== 'object' || a === null) return false;
  const o = a as Partial<AsideLog>;
  return Array.isArray(o.entries) && o.entries.every(isEntry) && typeof o.endTime === 'number'
    && typeof o.at === 'number' && typeof o.shared === 'number';
}

function readAsides(): AsidesRecord[] {
  if (!persistent) return [];
  try {
    const list: unknown = JSON.parse(localStorage.getItem(ASIDES_KEY) ?? '[]');
    if (!Array.isArray(list)) return [];
    return list.filter((r): r is AsidesRecord => typeof r?.session === 'string' && Array.isArray(r.asides)
      && r.asides.every(isAside));
  } catch {
    return [];
  }
}

/** The futures forks of the session with this configuration set aside
 *  (the worker checks that they belong to the log it boots). */
export function loadAsides(config: SessionConfig): AsideLog[] {
  return readAsides().find((r) => r.session === sessionKey(config))?.asides ?? [];
}

/** Keeps the futures set aside in this session, over a reload. */
export function saveAsides(config: SessionConfig, asides: AsideLog[]): void {
  if (!persistent) return;
  const session = sessionKey(config);
  const others = readAsides().filter((r) => r.session !== session);
  const list = asides.length ? [...others, { session, asides }] : others;
  try {
    localStorage.setItem(ASIDES_KEY, JSON.stringify(list.slice(-ASIDE_SESSIONS)));
  } catch {
    // Full storage: the futures stay restorable until the page is left.
  }
}

/** FNV-1a over the log's JSON: enough to tell one log from another here. */
function digestOf(log: SessionLog): string {
  const text = JSON.stringify(log);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${text.length}:${(h >>> 0).toString(16)}`;
}

/** Remembers `log` as opened from a link or a file. */
export function markOpened(log: SessionLog): void {
  if (!persistent) return;
  try {
    localStorage.setItem(OPENED_KEY, digestOf(log));
  } catch {
    // Without the mark, the next link puts this one aside: nothing is lost.
  }
}

/** Whether `log` is still exactly the last one opened from a link or a file. */
export function isOpenedUnchanged(log: SessionLog): boolean {
  if (!persistent) return false;
  try {
    return localStorage.getItem(OPENED_KEY) === digestOf(log);
  } catch {
    return false;
  }
}

export function clearOpened(): void {
  remove(OPENED_KEY);
}

export function clearLog(): void {
  remove(STORAGE_KEY);
}

function remove(key: string): void {
  if (!persistent) return;
  try {
    localStorage.removeItem(key);
  } catch {
    // Nothing saved to clear.
  }
}
