import { memo, useCallback, useId, useState, type FormEvent } from 'react';
import { useReady, useT } from '../../app/hooks';
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
      <div className="lesson-block-head">
        <span className="lesson-block-kind">{t('lesson.predict.label')}</span>
      </div>
      <p className="predict-question" id={labelId}><MdInlines nodes={block.question} /></p>
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
  const open = state === 'next' && ready && !busy;
  const onSubmit = useCallback((e: FormEvent) => {
    e.preventDefault();
    if (given.trim()) void runner.answer(block.key, given);
  }, [runner, block.key, given]);
  return (
    <form className="predict-form" onSubmit={onSubmit}>
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
        <label className="predict-free">
          <span>{t('lesson.predict.your')}</span>
          <input data-testid="lesson.predict.input" value={given} spellCheck={false} autoComplete="off"
            disabled={state !== 'next'} onChange={(e) => setGiven(e.target.value)} />
        </label>
      )}
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
      <button type="submit" className="btn primary small" data-testid="lesson.predict.check"
        disabled={!open || !given.trim()} title={state === 'waiting' ? t('lesson.block.waiting') : undefined}>
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
