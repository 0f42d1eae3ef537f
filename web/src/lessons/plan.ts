// A lesson's plan: which actions put the world in the state each step
// starts from. A step starts from the lesson's scenario (a fresh world from
// its seed) plus, in order, every action of the earlier steps (their auto
// blocks, then their other blocks in the order they appear) and the auto
// blocks of the step itself. The page and the tests both build states from
// these lists, so what a learner sees at step k is reproducible.
import type { Action, LogEntry } from '../../../wasm/protocol';
import { sameAction } from './actions';
import { isActionBlock, type ActionBlock, type Block, type ExpectBlock, type Lesson, type Step } from './types';

/** The Unix time at virtual time 0 of every lesson's world (2026-01-01
 *  00:00:00 UTC). A sandbox starts at the real time, but a lesson must be
 *  the same world whenever it is opened: Redis counts some things in whole
 *  seconds of this clock (everysec fsyncs at most once per second of
 *  unixtime), so the offset into the second changes what a step shows. */
export const LESSON_EPOCH_MS = 1_767_225_600_000;

export function blocksOf(step: Step): Block[] {
  return step.items.flatMap((i) => (i.kind === 'block' ? [i.block] : []));
}

/** Blocks that run when the step is entered. */
export function autoBlocks(step: Step): ActionBlock[] {
  return blocksOf(step).filter(isActionBlock).filter((b) => b.auto);
}

/** Blocks the learner runs, in the order they must be run. */
export function clickBlocks(step: Step): ActionBlock[] {
  return blocksOf(step).filter(isActionBlock).filter((b) => !b.auto);
}

/** Every action of a step, in the order the plan applies them. */
export function stepActions(step: Step): Action[] {
  return [...autoBlocks(step), ...clickBlocks(step)].flatMap((b) => b.actions);
}

/** The actions of the steps before step k. */
export function actionsBefore(lesson: Lesson, k: number): Action[] {
  return lesson.steps.slice(0, k).flatMap(stepActions);
}

/** The actions that build the state step k starts in. */
export function actionsAtEntry(lesson: Lesson, k: number): Action[] {
  return [...actionsBefore(lesson, k), ...autoBlocks(lesson.steps[k]).flatMap((b) => b.actions)];
}

/** The state just before the learner runs click block `n` of step k. */
export function actionsBeforeClick(lesson: Lesson, k: number, n: number): Action[] {
  return [...actionsAtEntry(lesson, k), ...clickBlocks(lesson.steps[k]).slice(0, n).flatMap((b) => b.actions)];
}

/** True when the log holds exactly the planned actions, in order: the
 *  world is then in the state the plan describes. */
export function logFollows(entries: readonly LogEntry[], planned: readonly Action[]): boolean {
  return entries.length === planned.length && entries.every((e, i) => sameAction(e.action, planned[i]));
}

/** True when the log holds the first of the planned actions, in order,
 *  and nothing else: applying the rest brings the world where the plan
 *  says, as replaying them all from a clean world would. */
export function logLeads(entries: readonly LogEntry[], planned: readonly Action[]): boolean {
  return entries.length <= planned.length && entries.every((e, i) => sameAction(e.action, planned[i]));
}

/** The focus targets of a step, in order. */
export function focusOf(step: Step): string[] {
  return blocksOf(step).flatMap((b) => (b.type === 'focus' ? b.targets : []));
}

/** The focus targets a step points at once `ran` of its click blocks have
 *  run: a focus block placed after a block the reader runs points at that
 *  block's result, so it waits for it. Until then the view may still show
 *  what an earlier step left there (the report of an earlier crash), which
 *  is not this step's to point at. */
export function focusOn(step: Step, ran: number): string[] {
  const out: string[] = [];
  let clicks = 0;
  for (const b of blocksOf(step)) {
    if (b.type === 'focus' && clicks <= ran) out.push(...b.targets);
    else if (isActionBlock(b) && !b.auto) clicks++;
  }
  return out;
}

/** The targets to bring into sight once `ran` of the step's click blocks
 *  have run: those of the last focus block the reader has reached (the
 *  text has moved on to it), or, before any, those of the step's first. */
export function followOf(step: Step, ran: number): string[] {
  let clicks = 0;
  let reached: string[] | null = null;
  let first: string[] | null = null;
  for (const b of blocksOf(step)) {
    if (b.type === 'focus') {
      first ??= b.targets;
      if (clicks <= ran) reached = b.targets;
    } else if (isActionBlock(b) && !b.auto) clicks++;
  }
  return reached ?? first ?? [];
}

/** Each acting block of a step with the expect blocks that follow it. */
export function claimsOf(step: Step): { block: ActionBlock; expects: ExpectBlock[] }[] {
  const out: { block: ActionBlock; expects: ExpectBlock[] }[] = [];
  for (const b of blocksOf(step)) {
    if (isActionBlock(b)) out.push({ block: b, expects: [] });
    else if (b.type === 'expect') out[out.length - 1]?.expects.push(b);
  }
  return out;
}
