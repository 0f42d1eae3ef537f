import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { actionsBefore, actionsBeforeClick, clickBlocks, followOf, logFollows } from '../../lessons/plan';
import type { Lesson } from '../../lessons/types';
import { useCurrentLesson, useLesson, useLessonApi } from './hooks';
import { StepBody } from './StepBody';
import { StepList } from './StepList';
import { followTarget } from './reveal';
import { ArrowLeftIcon, ArrowRightIcon, RestartIcon } from '../../shell/icons';

/** The open lesson: where you are, the step, and the way forward. */
export const LessonPanel = memo(function LessonPanel() {
  const lesson = useCurrentLesson();
  const step = useLesson((s) => s.active?.step ?? 0);
  if (!lesson) return null;
  return (
    <section className="panel lesson" aria-labelledby="lesson-title" data-testid="lesson.panel" data-lesson={lesson.id}
      data-step={step}>
      <LessonHead lesson={lesson} />
      <LessonBody lesson={lesson} step={step} />
      <LessonNav lesson={lesson} step={step} />
    </section>
  );
});

/** As little height as the title allows, so that the lesson's text has the
 *  room: the title (wrapped, never cut) flows around a restart of the step
 *  and the way out at its top right. Where you are is in the footer,
 *  between Previous and Next. */
function LessonHead({ lesson }: { lesson: Lesson }) {
  const t = useT();
  const runner = useLessonApi();
  const busy = useLesson((s) => s.busy);
  return (
    <header className="lesson-head">
      <div className="lesson-head-actions">
        <button type="button" className="btn ghost small" data-testid="lesson.reset" disabled={busy}
          title={t('lesson.reset')} onClick={() => void runner.resetStep()}>
          <RestartIcon /> <span className="btn-label">{t('lesson.reset')}</span>
        </button>
        <button type="button" className="btn ghost small" data-testid="lesson.leave" title={t('lesson.leaveHint')}
          disabled={busy} onClick={() => void runner.close()}>
          {t('lesson.leave')}
        </button>
      </div>
      <h2 id="lesson-title">
        <span className="sr-only">{t('lesson.label')}: </span>{lesson.title}
      </h2>
    </header>
  );
}

function LessonBody({ lesson, step }: { lesson: Lesson; step: number }) {
  const body = useRef<HTMLDivElement>(null);
  const ran = useLesson((s) => s.active?.ran ?? 0);
  const focus = followOf(lesson.steps[step], ran).join(' ');
  useEffect(() => {
    body.current?.scrollTo({ top: 0 });
  }, [lesson.id, step]);
  useEffect(() => {
    // Bring the focus target the reader has reached into sight as the step
    // opens and after each block (a target such as the walker's cursor may
    // appear only then; a later focus block of the step takes over once
    // the blocks before it have run), and keep it there while the views it
    // sits in settle.
    const targets = focus ? focus.split(' ') : [];
    if (!targets.length) return;
    return followTarget(targets);
  }, [lesson.id, step, focus, ran]);
  return (
    <div className="lesson-body" ref={body}>
      <StepNotes lesson={lesson} step={step} />
      <StepBody key={`${lesson.id}:${step}`} lesson={lesson} step={step} />
    </div>
  );
}

/** Whether the step was rebuilt or caught up, whether the world left the
 *  plan, errors. */
function StepNotes({ lesson, step }: { lesson: Lesson; step: number }) {
  const t = useT();
  const rebuilt = useLesson((s) => s.rebuilt);
  const caughtUp = useLesson((s) => s.caughtUp);
  const ran = useLesson((s) => s.active?.ran ?? 0);
  const error = useLesson((s) => s.error);
  const busy = useLesson((s) => s.busy);
  const entries = useAppState((s) => s.log.entries);
  const seed = useAppState((s) => s.log.config.seed);
  const offPlan = useMemo(() => !busy && !logFollows(entries, actionsBeforeClick(lesson, step, ran)),
    [busy, entries, lesson, step, ran]);
  const replayed = useMemo(() => actionsBefore(lesson, step).length, [lesson, step]);
  return (
    <>
      {error ? <p className="lesson-note bad" role="alert">{t('lesson.error', { msg: error })}</p> : null}
      {offPlan ? <p className="lesson-note warn" data-testid="lesson.offPlan">{t('lesson.offPlan')}</p> : null}
      {!offPlan && rebuilt && step > 0 ? <p className="lesson-note rebuilt">{t('lesson.rebuilt', { seed, n: replayed })}</p> : null}
      {!offPlan && caughtUp > 0 ? <p className="lesson-note rebuilt" data-testid="lesson.caughtUp">{t('lesson.caughtUp', { n: caughtUp })}</p> : null}
    </>
  );
}

function LessonNav({ lesson, step }: { lesson: Lesson; step: number }) {
  const t = useT();
  const runner = useLessonApi();
  const busy = useLesson((s) => s.busy);
  const ran = useLesson((s) => s.active?.ran ?? 0);
  const completed = useLesson((s) => s.active?.completed ?? []);
  const last = step === lesson.steps.length - 1;
  const allRan = ran >= clickBlocks(lesson.steps[step]).length;
  const finished = last && completed.includes(step);
  const onPrev = useCallback(() => void runner.previous(), [runner]);
  const onNext = useCallback(() => void runner.next(), [runner]);
  const onFinish = useCallback(() => runner.finish(), [runner]);
  const n = lesson.steps.length;
  return (
    <footer className="lesson-nav">
      <span className="lesson-bar" aria-hidden="true"><span style={{ width: `${(100 * (step + 1)) / n}%` }} /></span>
      {finished ? <p className="lesson-note ok" data-testid="lesson.finished" role="status">{t('lesson.finished')}</p> : null}
      <div className="lesson-nav-row">
        <button type="button" className="btn" data-testid="lesson.prev" disabled={busy || step === 0} onClick={onPrev}>
          <ArrowLeftIcon /> <span className="btn-label">{t('lesson.prev')}</span>
        </button>
        <StepList lesson={lesson} step={step} />
        {last ? (
          <button type="button" className={`btn ${allRan && !finished ? 'primary' : ''}`} data-testid="lesson.finish"
            disabled={busy || finished} onClick={onFinish}>
            {t('lesson.finish')}
          </button>
        ) : (
          <button type="button" className={`btn ${allRan ? 'primary' : ''}`} data-testid="lesson.next" disabled={busy}
            onClick={onNext}>
            {t('lesson.next')} <ArrowRightIcon />
          </button>
        )}
      </div>
    </footer>
  );
}
