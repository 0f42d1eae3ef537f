// Sharing, outside React: the current state as a link or a file, and
// opening one. Opening never loses the reader's own session: it is put
// aside in storage (persist.ts) and one click brings it back, which in
// turn puts the opened one aside. An embedded page keeps nothing.
import type { SessionLog } from '../../../wasm/protocol';
import { getInspected, getPane, setInspected, setPane } from '../app/pane';
import type { LessonRunner } from '../lessons/runner';
import { loadKept, loadSaved, storeKept, type KeptProgress } from '../lessons/progress';
import { clearPrevious, isOpenedUnchanged, loadPrevious, markOpened, savePrevious } from '../model/persist';
import type { Store } from '../model/store';
import { decodeState, encodeState, linkFor, MAX_LINK_CHARS } from './codec';
import { checkShared, ShareError, type ShareErrorKey, type SharedState } from './validate';

export type ShareSource = 'link' | 'file';

export type Notice =
  | {
    kind: 'opened'; source: ShareSource; entries: number;
    /** Actions of the reader's session put aside now (null: none). */
    putAside: number | null;
    /** Nothing put aside now: actions of the session put aside earlier,
     *  which stays (null: none). */
    stillAside: number | null;
    /** The session replaced was itself opened from a link or a file and
     *  left unchanged: it was not kept. */
    replacedOpened: boolean;
    lessonMissing: boolean;
  }
  | { kind: 'error'; source: ShareSource; key: ShareErrorKey | 'share.err.read' | 'share.err.storage'; detail: string }
  /** swapped: the session left was put aside in turn; dropped: it held
   *  actions and storage refused it. */
  | { kind: 'restored'; entries: number; swapped: boolean; dropped: boolean };

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

  /** The state the page shows now: log, position, lesson step, pane and
   *  the key inspected. */
  current(): SharedState {
    const s = this.store.getState();
    const out: SharedState = { log: s.log, pane: getPane() };
    const key = getInspected();
    if (key !== null) out.inspect = key;
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
    return this.open(state, 'link');
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
    return this.open(state, 'file');
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
   *  aside first when it is the reader's own: not when it is empty, nor
   *  when it is itself a link or a file opened earlier and left unchanged
   *  (then what was put aside before stays). The lesson progress a shared
   *  lesson replaces is kept with it. False (and a notice) if the session
   *  could not be put aside or the log does not replay; the reader's
   *  session is then as it was. */
  async open(state: SharedState, source: ShareSource): Promise<boolean> {
    let own: SessionLog | null = null;
    let putAside: number | null = null;
    let replacedOpened = false;
    const slotBefore = this.embedded ? null : loadPrevious();
    const keptBefore = this.embedded ? {} : loadKept();
    const lessonId = state.lesson && !this.embedded ? state.lesson.id : null;
    const progressBefore = lessonId ? this.lessons.progressOf(lessonId) : null;
    if (!this.embedded) {
      own = this.own();
      const text = JSON.stringify(own);
      const worthKeeping = own.entries.length > 0 && text !== JSON.stringify(state.log)
        && (slotBefore === null || text !== JSON.stringify(slotBefore));
      replacedOpened = worthKeeping && isOpenedUnchanged(own);
      let kept = keptBefore;
      if (worthKeeping && !replacedOpened) {
        if (!savePrevious(own)) return this.refuseUnsaved(source);
        putAside = own.entries.length;
        kept = {};
      }
      if (lessonId !== null && !Object.hasOwn(kept, lessonId)) kept = { ...kept, [lessonId]: progressBefore };
      if (!storeKept(kept)) {
        this.putBack(slotBefore, keptBefore);
        return this.refuseUnsaved(source);
      }
    }
    let lessonMissing = false;
    if (state.lesson && !this.embedded) {
      const { id, step, ran, answers = {} } = state.lesson;
      lessonMissing = !this.lessons.adopt(id, step, ran, state.log.config, own, answers);
    }
    if ((!state.lesson || lessonMissing) && !this.embedded && this.lessons.getState().active) this.lessons.forgetActive();
    if (state.pane && !this.embedded) setPane(state.pane);
    if (state.inspect) setInspected(state.inspect, !this.embedded);
    this.set({ previous: putAside ?? this.state.previous, notice: null });
    if (!(await this.store.boot(state.log, [], true))) {
      // Well formed, but this engine refuses to replay it (an action that
      // cannot apply where the log puts it): back to the reader's session,
      // with what was put aside and the lesson's progress as they were.
      const why = this.store.getState().error ?? this.store.getState().crash?.message ?? '';
      if (this.lessons.getState().active) this.lessons.forgetActive();
      if (own) {
        this.putBack(slotBefore, keptBefore);
        if (lessonId !== null) this.lessons.restoreProgress(lessonId, progressBefore);
        this.set({ previous: slotBefore ? slotBefore.entries.length : null });
        await this.store.boot(own);
      }
      this.set({ notice: { kind: 'error', source, key: 'share.err.replay', detail: why } });
      return false;
    }
    if (state.at !== undefined) await this.store.seek(state.at);
    // An embed's reader did not open anything: no notice there.
    if (this.embedded) return true;
    markOpened(state.log);
    const previous = this.state.previous;
    this.set({
      notice: {
        kind: 'opened', source, entries: state.log.entries.length, putAside,
        stillAside: putAside === null ? previous : null, replacedOpened, lessonMissing,
      },
    });
    return true;
  }

  /** The session put aside and the kept lesson progress, as they were. */
  private putBack(slot: SessionLog | null, kept: KeptProgress): void {
    if (slot) savePrevious(slot);
    else clearPrevious();
    storeKept(kept);
  }

  /** Nothing opened: the reader's session could not be put aside. */
  private refuseUnsaved(source: ShareSource): false {
    this.set({ notice: { kind: 'error', source, key: 'share.err.storage', detail: '' } });
    return false;
  }

  /** Brings back the session put aside, putting the current one aside,
   *  and the lesson progress that opening it had replaced. */
  async restorePrevious(): Promise<void> {
    const prev = loadPrevious();
    if (!prev || this.embedded) return;
    const own = this.own();
    const kept = own.entries.length > 0 && savePrevious(own);
    if (this.lessons.getState().active) this.lessons.forgetActive();
    for (const [id, p] of Object.entries(loadKept())) this.lessons.restoreProgress(id, p);
    storeKept({});
    this.set({
      previous: kept ? own.entries.length : null,
      notice: { kind: 'restored', entries: prev.entries.length, swapped: kept, dropped: !kept && own.entries.length > 0 },
    });
    if (!kept) clearPrevious();
    await this.store.boot(prev);
  }
}
