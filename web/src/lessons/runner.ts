// The lesson runner: opens a lesson, moves between its steps, runs its
// blocks and checks predictions, all through the store's actions, so every
// change a lesson makes is in the input log like any other. No React here:
// components read its state through views/lesson/hooks.ts.
//
// A step's starting state is the scenario plus the planned actions of the
// earlier steps (plan.ts). Moving on with the world live (not rewound, its
// clock still) and on the plan, the step is entered in place: the next
// step's own actions run when the world is exactly where the plan says the
// previous one ends (the log holds the planned actions and nothing else);
// when blocks were left unrun, the actions the world lacks run first. Any
// other way, the step is rebuilt from a clean world.
import type { ConsoleEntry, ReplyValue, SessionConfig, SessionLog } from '../../../wasm/protocol';
import type { Lang } from '../i18n';
import { freshConfig, freshLog } from '../model/persist';
import type { Store } from '../model/store';
import { findLesson } from './catalog';
import { LESSON_EPOCH_MS, actionsAtEntry, actionsBefore, actionsBeforeClick, autoBlocks, clickBlocks, logFollows, logLeads } from './plan';
import { answerFits, compare, needsAof, probeRoots, readProbe, readSlabs, showValue } from './probe';
import { emptySaved, loadSaved, storeSaved, type Answer, type LessonProgress, type SavedLessons } from './progress';
import type { ActionBlock, Lesson } from './types';

export interface ActiveLesson {
  id: string;
  step: number;
  /** Click blocks of this step run so far, in order. */
  ran: number;
  completed: number[];
  answers: Record<string, Answer>;
}

export interface LessonState {
  active: ActiveLesson | null;
  /** A lesson operation is under way (buttons wait). */
  busy: boolean;
  /** The current step was rebuilt from a clean state on entry. */
  rebuilt: boolean;
  /** The actions of earlier blocks left unrun that moving on to the
   *  current step applied in place, to bring the world where the plan
   *  says (0: none). */
  caughtUp: number;
  pickerOpen: boolean;
  /** Why the last operation failed, if it did. */
  error: string | null;
}

export class LessonRunner {
  private readonly store: Store;
  private saved: SavedLessons;
  private state: LessonState;
  private readonly listeners = new Set<() => void>();

  constructor(store: Store, saved: SavedLessons = loadSaved()) {
    this.store = store;
    this.saved = saved;
    const p = saved.active ? saved.lessons[saved.active] : undefined;
    const lesson = saved.active ? this.lesson(saved.active) : null;
    // A lesson file may have changed since: a step it no longer has is not restored.
    const fits = lesson && p && p.step < lesson.steps.length && p.ran <= clickBlocks(lesson.steps[p.step]).length;
    const active = fits ? activeOf(saved.active!, p) : null;
    this.state = { active, busy: false, rebuilt: false, caughtUp: 0, pickerOpen: false, error: null };
  }

  getState = (): LessonState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private set(patch: Partial<LessonState>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn();
  }

  private get lang(): Lang {
    return this.store.getState().lang;
  }

  /** The lesson with this id in the page's language. */
  lesson(id: string): Lesson | null {
    return findLesson(id, this.lang);
  }

  /** The open lesson, in the page's language. */
  current(): Lesson | null {
    return this.state.active ? this.lesson(this.state.active.id) : null;
  }

  /** Saved progress of a lesson, or null if it was never opened. */
  progressOf(id: string): LessonProgress | null {
    return this.saved.lessons[id] ?? null;
  }

  /** Puts back a lesson's saved progress as it was (null: never opened),
   *  when the session a shared one replaced comes back. */
  restoreProgress(id: string, p: LessonProgress | null): void {
    const lessons = { ...this.saved.lessons };
    if (p) lessons[id] = p;
    else delete lessons[id];
    this.saved = { ...this.saved, lessons };
    storeSaved(this.saved);
  }

  setPicker(open: boolean): void {
    this.set({ pickerOpen: open });
  }

  /** Forgets the open lesson without touching the world (a fresh start). */
  forgetActive(): void {
    this.saved = { ...this.saved, active: null, sandbox: null };
    storeSaved(this.saved);
    this.set({ active: null, rebuilt: false, caughtUp: 0 });
  }

  /** After the saved log was replayed at load: trusts the log over the
   *  saved count of blocks run, in case the page closed between the two. */
  reconcile(): void {
    const a = this.state.active;
    const lesson = this.current();
    if (!a || !lesson || a.step >= lesson.steps.length) return;
    const entries = this.store.getState().log.entries;
    const clicks = clickBlocks(lesson.steps[a.step]).length;
    for (let n = clicks; n >= 0; n--) {
      if (logFollows(entries, actionsBeforeClick(lesson, a.step, n))) {
        if (n !== a.ran) this.update({ ...a, ran: n });
        return;
      }
    }
  }

  /** Takes the open lesson from a shared session (a link or a file): the
   *  caller boots the shared log; here the lesson is marked open at that
   *  step with that configuration, and `sandbox` is what closing it will
   *  bring back. False if this page has no such lesson or step. */
  adopt(
    id: string, step: number, ran: number, config: LessonProgress['config'], sandbox: SessionLog | null,
    answers: Record<string, Answer> = {},
  ): boolean {
    const lesson = this.lesson(id);
    if (!lesson || step >= lesson.steps.length || ran > clickBlocks(lesson.steps[step]).length) return false;
    const prev = this.saved.lessons[id];
    const a: ActiveLesson = { id, step, ran, completed: prev?.completed ?? [], answers };
    this.saved = { ...this.saved, sandbox };
    this.update(a, config);
    this.set({ rebuilt: false, caughtUp: 0, error: null });
    return true;
  }

  // ---- Opening and leaving. ----

  async open(id: string): Promise<void> {
    const lesson = this.lesson(id);
    if (!lesson || this.state.busy) return;
    this.set({ pickerOpen: false });
    if (this.state.active?.id === id) return;
    const sandbox = this.state.active ? this.saved.sandbox : this.store.getState().log;
    const p = this.saved.lessons[id] ?? newProgress(lesson);
    const step = Math.min(p.step, lesson.steps.length - 1);
    this.saved = { ...this.saved, active: id, sandbox, lessons: { ...this.saved.lessons, [id]: p } };
    await this.busy(() => this.rebuild(lesson, activeOf(id, { ...p, step }), step, Math.min(p.ran, clickBlocks(lesson.steps[step]).length)));
  }

  /** Leaves the lesson and brings back the sandbox session. */
  async close(): Promise<void> {
    if (!this.state.active || this.state.busy) return;
    const sandbox = this.saved.sandbox;
    this.saved = { ...this.saved, active: null, sandbox: null };
    storeSaved(this.saved);
    this.set({ active: null, rebuilt: false, caughtUp: 0, error: null });
    await this.busy(() => this.store.boot(sandbox ?? freshLog()));
  }

  // ---- Moving between steps. ----

  async goTo(k: number): Promise<void> {
    const a = this.state.active;
    const lesson = this.current();
    if (!a || !lesson || this.state.busy || k < 0 || k >= lesson.steps.length || k === a.step) return;
    const completed = k > a.step && a.ran >= clickBlocks(lesson.steps[a.step]).length
      ? addStep(a.completed, a.step) : a.completed;
    const { log, snapshot } = this.store.getState();
    // Live and still: an action taken in the past would fork the log
    // there, and a playing clock would log its advances between them.
    const live = (snapshot?.history.atEnd ?? false) && !snapshot?.playing;
    const inPlace = live && k === a.step + 1 && logFollows(log.entries, actionsBefore(lesson, k));
    const planned = actionsAtEntry(lesson, k);
    const onPlan = live && !inPlace && k > a.step
      && sameConfig(log.config, this.configOf(lesson, a.id)) && logLeads(log.entries, planned);
    await this.busy(async () => {
      if (onPlan) {
        this.update({ ...a, step: k, ran: 0, completed });
        this.set({ rebuilt: false, caughtUp: 0 });
        if (!(await this.store.actAll(planned.slice(log.entries.length)))) {
          this.set({ error: this.store.getState().error });
          return false;
        }
        this.set({ caughtUp: Math.max(0, actionsBefore(lesson, k).length - log.entries.length) });
        return true;
      }
      if (!inPlace) return this.rebuild(lesson, { ...a, completed }, k, 0);
      for (const b of autoBlocks(lesson.steps[k])) {
        if (!(await this.apply(b))) return false;
      }
      this.update({ ...a, step: k, ran: 0, completed });
      this.set({ rebuilt: false, caughtUp: 0 });
      return true;
    });
  }

  next(): Promise<void> {
    return this.goTo((this.state.active?.step ?? -1) + 1);
  }

  previous(): Promise<void> {
    return this.goTo((this.state.active?.step ?? 1) - 1);
  }

  /** Marks the last step done (its blocks all ran) without leaving it. */
  finish(): void {
    const a = this.state.active;
    const lesson = this.current();
    if (!a || !lesson) return;
    this.update({ ...a, completed: addStep(a.completed, a.step) });
  }

  /** Rebuilds the current step's starting state and forgets its answers. */
  async resetStep(): Promise<void> {
    const a = this.state.active;
    const lesson = this.current();
    if (!a || !lesson || this.state.busy) return;
    const keys = new Set(clickBlocks(lesson.steps[a.step]).map((b) => b.key));
    const answers = Object.fromEntries(Object.entries(a.answers).filter(([k]) => !keys.has(k)));
    await this.busy(() => this.rebuild(lesson, { ...a, answers }, a.step, 0));
  }

  // ---- Blocks. ----

  /** Runs the next click block of the step (blocks run in order). */
  async run(key: string): Promise<ConsoleEntry[] | null> {
    const found = this.clickBlock(key);
    if (!found || this.state.busy) return null;
    let out: ConsoleEntry[] | null = null;
    await this.busy(async () => {
      out = await this.apply(found.block);
      if (out) this.update({ ...this.state.active!, ran: found.n + 1 });
      return out !== null;
    });
    return out;
  }

  /** Records the learner's guess, runs the block, and checks the guess
   *  against what the engine then reports. */
  async answer(key: string, given: string): Promise<Answer | null> {
    const found = this.clickBlock(key);
    if (!found || found.block.type !== 'predict' || this.state.busy) return null;
    if (!answerFits(found.block.answerType, given)) return null;
    const block = found.block;
    let result: Answer | null = null;
    await this.busy(async () => {
      const out = await this.apply(block);
      if (!out) return false;
      const reply = lastReply(out);
      // The AOF view is asked for only when the answer reads it.
      const aof = needsAof(block.answer) ? await this.store.aofView() : null;
      const slabs = await readSlabs([block.answer], (q) => this.store.slabs(q));
      const value = readProbe(block.answer, probeRoots(this.store.getState().snapshot, reply, aof, slabs));
      result = { given: given.trim(), actual: showValue(value), correct: compare(value, '=', given) };
      const a = this.state.active!;
      this.update({ ...a, ran: found.n + 1, answers: { ...a.answers, [key]: result } });
      return true;
    });
    return result;
  }

  /** Puts the world back to just before a predict block, to guess again. */
  async retry(key: string): Promise<void> {
    const found = this.clickBlock(key, true);
    const a = this.state.active;
    const lesson = this.current();
    if (!found || !a || !lesson || this.state.busy) return;
    const answers = { ...a.answers };
    delete answers[key];
    await this.busy(() => this.rebuild(lesson, { ...a, answers }, a.step, found.n));
  }

  private clickBlock(key: string, anyRun = false): { block: ActionBlock; n: number } | null {
    const a = this.state.active;
    const lesson = this.current();
    if (!a || !lesson) return null;
    const blocks = clickBlocks(lesson.steps[a.step]);
    const n = blocks.findIndex((b) => b.key === key);
    if (n < 0 || (anyRun ? n > a.ran : n !== a.ran)) return null;
    return { block: blocks[n], n };
  }

  // ---- Plumbing. ----

  /** Applies a block's actions; null if one failed. */
  private async apply(block: ActionBlock): Promise<ConsoleEntry[] | null> {
    const out: ConsoleEntry[] = [];
    for (const action of block.actions) {
      const entries = await this.store.act(action);
      const s = this.store.getState();
      if (s.error || s.phase !== 'ready') {
        this.set({ error: s.error });
        return null;
      }
      out.push(...entries);
    }
    return out;
  }

  /** Builds the state before click block `ran` of step k from a clean world. */
  private async rebuild(lesson: Lesson, a: ActiveLesson, k: number, ran: number): Promise<boolean> {
    const config = this.configOf(lesson, a.id);
    const script = ran === 0 ? actionsAtEntry(lesson, k) : actionsBeforeClick(lesson, k, ran);
    this.update({ ...a, step: k, ran }, config);
    this.set({ rebuilt: true, caughtUp: 0 });
    return this.store.boot({ version: 1, config, entries: [] }, script);
  }

  /** The scenario a lesson's world is built from. */
  private configOf(lesson: Lesson, id: string): SessionConfig {
    return this.saved.lessons[id]?.config ?? newProgress(lesson).config;
  }

  private update(a: ActiveLesson, config?: LessonProgress['config']): void {
    const prev = this.saved.lessons[a.id];
    const progress: LessonProgress = {
      step: a.step, ran: a.ran, completed: a.completed, answers: a.answers,
      config: config ?? prev?.config ?? freshConfig(),
    };
    this.saved = { ...this.saved, active: a.id, lessons: { ...this.saved.lessons, [a.id]: progress } };
    storeSaved(this.saved);
    this.set({ active: a });
  }

  private async busy(fn: () => Promise<unknown>): Promise<void> {
    this.set({ busy: true, error: null });
    try {
      await fn();
    } finally {
      this.set({ busy: false });
    }
  }

  /** Clears every lesson's progress (and closes the open one). */
  forgetAll(): void {
    this.saved = emptySaved();
    storeSaved(this.saved);
    this.set({ active: null, rebuilt: false, caughtUp: 0 });
  }
}

function sameConfig(x: SessionConfig, y: SessionConfig): boolean {
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]) as Set<keyof SessionConfig>;
  return [...keys].every((key) => x[key] === y[key]);
}

function newProgress(lesson: Lesson): LessonProgress {
  return { step: 0, ran: 0, completed: [], answers: {}, config: { ...freshConfig(lesson.seed), unixMsAtZero: LESSON_EPOCH_MS } };
}

function activeOf(id: string, p: LessonProgress): ActiveLesson {
  return { id, step: p.step, ran: p.ran, completed: p.completed, answers: p.answers };
}

function addStep(list: number[], k: number): number[] {
  return list.includes(k) ? list : [...list, k].sort((x, y) => x - y);
}

/** The reply of the last command a block ran (console blocks). */
function lastReply(entries: readonly ConsoleEntry[]): ReplyValue | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].reply !== undefined) return entries[i].reply;
  return undefined;
}
