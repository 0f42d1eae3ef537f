import { memo, useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useReady, useT } from '../../app/hooks';
import { answerFits } from '../../lessons/probe';
import type { PredictBlock } from '../../lessons/types';
import { ActionLine, type BlockState } from './ActionBlockView';
import { useLesson, useLessonApi } from './hooks';
import { MdInlines } from './Markdown';
import { CheckIcon, CrossIcon } from '../../shell/icons';

/** A question answered before running: the guess is checked against what
 *  the engine reports once the block has run. */
export const PredictView = memo(function PredictView({ block, state }: { block: PredictBlock; state: BlockState }) {
  const t = useT();
  const answer = useLesson((s) => s.active?.answers[block.key] ?? null);
  const shown = state === 'done' ? answer : null;
  const verdict = shown ? (shown.correct ? 'right' : 'wrong') : 'open';
  const labelId = useId();
  return (
    <div className={`lesson-block predict ${verdict}`} data-testid="lesson.predict" data-block-key={block.key}
      data-state={state} data-verdict={verdict} role="group" aria-labelledby={labelId}>
      <p className="predict-question" id={labelId}>
        <span className="lesson-block-kind">{t('lesson.predict.label')}</span> <MdInlines nodes={block.question} />
      </p>
      {shown ? <Result block={block} given={shown.given} actual={shown.actual} correct={shown.correct} /> : (
        <Ask block={block} state={state} />
      )}
    </div>
  );
});

function Ask({ block, state }: { block: PredictBlock; state: BlockState }) {
  const t = useT();
  const runner = useLessonApi();
  const ready = useReady();
  const busy = useLesson((s) => s.busy);
  const [given, setGiven] = useState('');
  const errorId = useId();
  const open = state === 'next' && ready && !busy;
  const fits = answerFits(block.answerType, given);
  // A typed answer that cannot be the question's type is refused before
  // anything runs, with the reason beside the field.
  const refused = !block.choices && given.trim() !== '' && !fits;
  const reason = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (refused) reason.current?.scrollIntoView({ block: 'nearest' });
  }, [refused]);
  const onSubmit = useCallback((e: FormEvent) => {
    e.preventDefault();
    if (fits) void runner.answer(block.key, given);
  }, [runner, block.key, given, fits]);
  return (
    <form className="predict-form" onSubmit={onSubmit}>
      <div className="predict-run">
        <span className="dim">{t('lesson.predict.willRun')}</span>
        {block.commands.length ? (
          <code className="predict-cmd">{block.commands.join(' · ')}</code>
        ) : (
          <ul className="lesson-actions inline">
            {block.lines.map((l, i) => <ActionLine key={i} text={l.text} actions={l.actions} />)}
          </ul>
        )}
      </div>
      {block.choices ? (
        <div className="predict-choices" role="radiogroup" aria-label={t('lesson.predict.your')}>
          {block.choices.map((c) => (
            <label key={c.value} className={`predict-choice ${given === c.value ? 'on' : ''}`}>
              <input type="radio" name={`predict-${block.key}`} value={c.value} checked={given === c.value}
                data-testid="lesson.predict.choice" disabled={state !== 'next'} onChange={() => setGiven(c.value)} />
              <span>{c.label}</span>
            </label>
          ))}
        </div>
      ) : (
        <div className="predict-free-wrap">
          <label className="predict-free">
            <span>{t('lesson.predict.your')}</span>
            <input data-testid="lesson.predict.input" data-answer-type={block.answerType} value={given}
              spellCheck={false} autoComplete="off" disabled={state !== 'next'}
              inputMode={block.answerType === 'number' ? 'decimal' : undefined}
              placeholder={block.answerType === 'number' ? t('lesson.predict.aNumber') : undefined}
              aria-invalid={refused || undefined} aria-describedby={refused ? errorId : undefined}
              onChange={(e) => setGiven(e.target.value)} />
          </label>
          {refused ? (
            <p className="predict-invalid" id={errorId} role="alert" data-testid="lesson.predict.invalid" ref={reason}>
              {t('lesson.predict.notNumber')}
            </p>
          ) : null}
        </div>
      )}
      <button type="submit" className="btn primary small" data-testid="lesson.predict.check"
        disabled={!open || !fits} title={state === 'waiting' ? t('lesson.block.waiting') : undefined}>
        {t('lesson.predict.check')}
      </button>
    </form>
  );
}

function Result({ block, given, actual, correct }: { block: PredictBlock; given: string; actual: string; correct: boolean }) {
  const t = useT();
  const runner = useLessonApi();
  const busy = useLesson((s) => s.busy);
  const ready = useReady();
  const onRetry = useCallback(() => void runner.retry(block.key), [runner, block.key]);
  const label = (v: string) => block.choices?.find((c) => c.value.toLowerCase() === v.toLowerCase())?.label ?? v;
  return (
    <div className="predict-result" data-testid="lesson.predict.result" role="status">
      <p className={`predict-verdict ${correct ? 'ok' : 'bad'}`}>
        {correct ? <CheckIcon /> : <CrossIcon />}{' '}
        {correct
          ? t('lesson.predict.right', { actual: label(actual) })
          : t('lesson.predict.wrong', { given: label(given), actual: label(actual) })}
      </p>
      {block.explain ? <p className="predict-explain"><MdInlines nodes={block.explain} /></p> : null}
      {correct ? null : (
        <button type="button" className="btn small" data-testid="lesson.predict.retry" disabled={busy || !ready} onClick={onRetry}>
          {t('lesson.predict.retry')}
        </button>
      )}
    </div>
  );
}
