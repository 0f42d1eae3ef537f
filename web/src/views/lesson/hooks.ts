// The React side of the lesson runner: context, state slices, and the
// props that mark an element as a focus target of the current step.
import { createContext, useContext, useSyncExternalStore } from 'react';
import { useAppState } from '../../app/hooks';
import { findLesson } from '../../lessons/catalog';
import { focusOf } from '../../lessons/plan';
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

/** Focus targets of the current step, space separated ('' when none). */
function useFocusList(): string {
  const lesson = useCurrentLesson();
  const step = useLesson((s) => s.active?.step ?? -1);
  const s = lesson?.steps[step];
  return s ? focusOf(s).join(' ') : '';
}

export interface TargetProps {
  'data-lesson-target': string;
  'data-lesson-focus'?: 'on';
}

/** Props for the element a lesson may point at as `name`. */
export function useLessonTarget(name: string): TargetProps {
  const focus = useFocusList();
  const on = focus !== '' && focus.split(' ').includes(name);
  return on ? { 'data-lesson-target': name, 'data-lesson-focus': 'on' } : { 'data-lesson-target': name };
}
