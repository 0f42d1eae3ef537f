import { memo, useRef } from 'react';
import { useT } from '../../app/hooks';
import type { Lesson } from '../../lessons/types';
import { useLesson, useLessonApi } from './hooks';
import { CheckIcon } from '../../shell/icons';

/** Where the lesson is (step k of n), opening onto the lesson's level and
 *  every step of it, the current one marked; any can be opened (a later
 *  one by running the blocks skipped on the way while the world is still
 *  on the plan, any other rebuilt from a clean state). */
export const StepList = memo(function StepList({ lesson, step }: { lesson: Lesson; step: number }) {
  const t = useT();
  const runner = useLessonApi();
  const busy = useLesson((s) => s.busy);
  const completed = useLesson((s) => s.active?.completed ?? []);
  const details = useRef<HTMLDetailsElement>(null);
  const open = (k: number) => {
    if (details.current) details.current.open = false;
    void runner.goTo(k);
  };
  return (
    <details className="lesson-steps" ref={details}>
      <summary data-testid="lesson.steps" title={t('lesson.steps')}>
        <span data-testid="lesson.stepOf">{t('lesson.stepOf', { k: step + 1, n: lesson.steps.length })}</span>
        <span className="sr-only">: {t('lesson.steps')}</span>
      </summary>
      <div className="lesson-steps-list">
        <p className="lesson-steps-meta">
          <span className="chip lesson-level">{t(`lessons.level.${lesson.level}`)}</span>{' '}
          {t('lessons.steps', { n: lesson.steps.length })}
        </p>
        <ol>
          {lesson.steps.map((s) => {
            const done = completed.includes(s.index);
            return (
              <li key={s.index} className={s.index === step ? 'current' : ''}>
                <button type="button" className="lesson-step-link" data-testid="lesson.steps.item" data-step={s.index}
                  aria-current={s.index === step ? 'step' : undefined} disabled={busy}
                  onClick={() => open(s.index)}>
                  <span className="lesson-step-n">{s.index + 1}.</span> {s.title}
                  {done ? <span className="lesson-step-done"> <CheckIcon /><span className="sr-only"> {t('lesson.stepDone')}</span></span> : null}
                </button>
              </li>
            );
          })}
        </ol>
      </div>
    </details>
  );
});
