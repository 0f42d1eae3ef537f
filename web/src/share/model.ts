// Sharing, outside React: the current state as a link or a file, and
// opening one. Opening never loses the reader's own session: it is put
// aside in storage (persist.ts) and one click brings it back, which in
// turn puts the opened one aside. An embedded page keeps nothing.
import type { SessionLog } from '../../../wasm/protocol';
import { getPane, setPane } from '../app/pane';
import type { LessonRunner } from '../lessons/runner';
import { loadSaved } from '../lessons/progress';
import { clearPrevious, loadPrevious, savePrevious } from '../model/persist';
import type { Store } from '../model/store';
import { decodeState, encodeState, linkFor, MAX_LINK_CHARS } from './codec';
import { checkShared, ShareError, type ShareErrorKey, type SharedState } from './validate';

export type ShareSource = 'link' | 'file';

export type Notice =
  | { kind: 'opened'; source: ShareSource; entries: number; previous: number | null; lessonMissing: boolean }
  | { kind: 'error'; source: ShareSource; key: ShareErrorKey | 'share.err.read'; detail: string }
  | { kind: 'restored'; entries: number };

export interface ShareState {
  notice: Notice | null;
  /** Actions in the session put aside (null: none kept). */
  previous: number | null;
}

/** What an exported file holds: the shared state, marked as ours. */
export const FILE_MARK = 'glasskv-session';
/** Largest file import reads. */
export const MAX_FILE_BYTES = 64 << 20;

export interface Link {
  url: string;
  /** Longer than MAX_LINK_CHARS: offer a file instead. */
  tooLong: boolean;
}

export class ShareModel {
  private state: ShareState;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly lessons: LessonRunner,
    private readonly embedded: boolean,
  ) {
    const prev = embedded ? null : loadPrevious();
    this.state = { notice: null, previous: prev ? prev.entries.length : null };
  }

  getState = (): ShareState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private set(patch: Partial<ShareState>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn();
  }

  dismiss(): void {
    this.set({ notice: null });
  }

  /** The state the page shows now: log, position, lesson step, pane. */
  current(): SharedState {
    const s = this.store.getState();
    const out: SharedState = { log: s.log, pane: getPane() };
    const h = s.snapshot?.history;
    if (h && !h.atEnd) out.at = this.store.seekedTo ?? s.snapshot!.now;
    const a = this.lessons.getState().active;
    if (a) out.lesson = { id: a.id, step: a.step, ran: a.ran, answers: a.answers };
    return out;
  }

  /** A link to the current state (query: the search part, e.g. embed's). */
  async link(query = '', state: SharedState = this.current()): Promise<Link> {
    const url = linkFor(await encodeState(state), location.href, query);
    return { url, tooLong: url.length > MAX_LINK_CHARS };
  }

  /** The current state as the text of an export file. */
  fileText(): string {
    return `${JSON.stringify({ format: FILE_MARK, v: 1, ...this.current() }, null, 1)}\n`;
  }

  /** Opens the state a link's fragment carries. False (and a notice) if
   *  it cannot be read; nothing is changed then. */
  async openFragment(text: string): Promise<boolean> {
    let state: SharedState;
    try {
      state = await decodeState(text);
    } catch (e) {
      this.fail('link', e);
      return false;
    }
    await this.open(state, 'link');
    return true;
  }

  /** Reads an exported file and opens it. */
  async importFile(file: Blob): Promise<boolean> {
    let state: SharedState;
    try {
      if (file.size > MAX_FILE_BYTES) throw new ShareError('share.err.tooBig');
      let value: unknown;
      try {
        value = JSON.parse(await file.text());
      } catch {
        throw new ShareError('share.err.json');
      }
      const o = value as { format?: unknown } | null;
      if (typeof o !== 'object' || o === null || o.format !== FILE_MARK) throw new ShareError('share.err.notOurs');
      const { format: _, ...rest } = o as Record<string, unknown>;
      state = checkShared(rest);
    } catch (e) {
      this.fail('file', e);
      return false;
    }
    await this.open(state, 'file');
    return true;
  }

  private fail(source: ShareSource, e: unknown): void {
    if (e instanceof ShareError) this.set({ notice: { kind: 'error', source, key: e.key, detail: e.detail } });
    else this.set({ notice: { kind: 'error', source, key: 'share.err.read', detail: e instanceof Error ? e.message : String(e) } });
  }

  /** The reader's own session: the sandbox put aside by an open lesson,
   *  else the session running. */
  private own(): SessionLog {
    return this.lessons.getState().active ? loadSaved().sandbox ?? this.store.getState().log : this.store.getState().log;
  }

  /** Boots a shared state in place of the current session, which is put
   *  aside first when it holds anything. */
  async open(state: SharedState, source: ShareSource): Promise<void> {
    let putAside: number | null = null;
    let own: SessionLog | null = null;
    if (!this.embedded) {
      own = this.own();
      if (own.entries.length > 0 && JSON.stringify(own) !== JSON.stringify(state.log) && savePrevious(own)) {
        putAside = own.entries.length;
      }
    }
    let lessonMissing = false;
    if (state.lesson && !this.embedded) {
      const { id, step, ran, answers = {} } = state.lesson;
      lessonMissing = !this.lessons.adopt(id, step, ran, state.log.config, own, answers);
    }
    if ((!state.lesson || lessonMissing) && !this.embedded && this.lessons.getState().active) this.lessons.forgetActive();
    if (state.pane && !this.embedded) setPane(state.pane);
    this.set({ previous: putAside ?? this.state.previous, notice: null });
    if (!(await this.store.boot(state.log, [], true))) {
      // Well formed, but this engine refuses to replay it (an action that
      // cannot apply where the log puts it): back to the reader's session.
      const why = this.store.getState().error ?? this.store.getState().crash?.message ?? '';
      if (this.lessons.getState().active) this.lessons.forgetActive();
      if (own) {
        if (putAside !== null) clearPrevious();
        this.set({ previous: putAside !== null ? null : this.state.previous });
        await this.store.boot(own);
      }
      this.set({ notice: { kind: 'error', source, key: 'share.err.replay', detail: why } });
      return;
    }
    if (state.at !== undefined) await this.store.seek(state.at);
    // An embed's reader did not open anything: no notice there.
    if (this.embedded) return;
    this.set({ notice: { kind: 'opened', source, entries: state.log.entries.length, previous: putAside, lessonMissing } });
  }

  /** Brings back the session put aside, putting the current one aside. */
  async restorePrevious(): Promise<void> {
    const prev = loadPrevious();
    if (!prev || this.embedded) return;
    const own = this.own();
    const kept = own.entries.length > 0 && savePrevious(own);
    if (this.lessons.getState().active) this.lessons.forgetActive();
    this.set({ previous: kept ? own.entries.length : null, notice: { kind: 'restored', entries: prev.entries.length } });
    if (!kept) clearPrevious();
    await this.store.boot(prev);
  }
}
