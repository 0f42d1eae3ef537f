// The input log in localStorage: written as it grows, so that a reload or
// a crash of the worker loses nothing; read back at start and replayed.
import type { LogEntry, SessionConfig, SessionLog } from '../../../wasm/protocol';

const STORAGE_KEY = 'glasskv.session.v1';
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

/** The saved log, or null when there is none or it cannot be read. */
export function loadLog(): SessionLog | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
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

export function saveLog(log: SessionLog): boolean {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(log));
    return true;
  } catch {
    return false;
  }
}

export function clearLog(): void {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing saved to clear.
  }
}
