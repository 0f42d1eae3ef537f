// The React side of the lesson runner: context, state slices, and the
// props that mark an element as a focus target of the current step.
import { createContext, useContext, useSyncExternalStore } from 'react';
import { useAppState } from '../../app/hooks';
import { findLesson } from '../../lessons/catalog';
import { focusOf, focusOn } from '../../lessons/plan';
import type { LessonRunner, LessonState } from '../../lessons/runner';
import type { Lesson } from '../../lessons/types';

export const LessonContext = createContext<LessonRunner | null>(null);

export function useLessonApi(): LessonRunner {
  const runner = useContext(LessonContext);
  if (!runner) throw new Error('LessonContext is missing');
  return runner;
}

export function useLesson<T>(select: (s: LessonState) => T): T {
  const runner = useLessonApi();
  return useSyncExternalStore(runner.subscribe, () => select(runner.getState()));
}

/** The open lesson in the page's language, or null. */
export function useCurrentLesson(): Lesson | null {
  const id = useLesson((s) => s.active?.id ?? null);
  const lang = useAppState((s) => s.lang);
  return id ? findLesson(id, lang) : null;
}

/** What the current step points at: 'on' once the blocks before its
 *  focus block have run, 'pending' before (brought into sight, not
 *  highlighted), null if it does not. */
function useFocusOf(name: string): 'on' | 'pending' | null {
  const lesson = useCurrentLesson();
  const step = useLesson((s) => s.active?.step ?? -1);
  const ran = useLesson((s) => s.active?.ran ?? 0);
  const s = lesson?.steps[step];
  if (!s || !focusOf(s).includes(name)) return null;
  return focusOn(s, ran).includes(name) ? 'on' : 'pending';
}

export interface TargetProps {
  'data-lesson-target': string;
  'data-lesson-focus'?: 'on' | 'pending';
}

/** Props for the element a lesson may point at as `name`. */
export function useLessonTarget(name: string): TargetProps {
  const focus = useFocusOf(name);
  return focus ? { 'data-lesson-target': name, 'data-lesson-focus': focus } : { 'data-lesson-target': name };
}
