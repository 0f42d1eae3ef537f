import { memo, useCallback } from 'react';
import { useReady, useT } from '../../app/hooks';
import { actionText } from '../../model/format';
import type { ConfigBlock, DoBlock, RunBlock } from '../../lessons/types';
import { useLesson, useLessonApi } from './hooks';
import { CheckIcon } from '../../shell/icons';

/** Where a block stands: ran as the step opened, ran, runs next, or waits
 *  for the blocks above it. */
export type BlockState = 'auto' | 'done' | 'next' | 'waiting';

const LABELS = { run: 'lesson.block.run', do: 'lesson.block.do', config: 'lesson.block.config' } as const;
const HEADS = { run: 'lesson.block.commands', do: 'lesson.block.actions', config: 'lesson.block.settings' } as const;

/** A block that acts on the world: what it will do, and its button beside
 *  it (under it when the column is narrow). */
export const ActionBlockView = memo(function ActionBlockView({ block, state }: {
  block: RunBlock | DoBlock | ConfigBlock;
  state: BlockState;
}) {
  const t = useT();
  const runner = useLessonApi();
  const ready = useReady();
  const busy = useLesson((s) => s.busy);
  const onRun = useCallback(() => void runner.run(block.key), [runner, block.key]);
  return (
    <div className={`lesson-block ${state}`} data-testid="lesson.block" data-block-key={block.key} data-state={state}>
      <div className="lesson-block-head">
        <span className="lesson-block-kind">{t(HEADS[block.type])}</span>
        <BlockStatus state={state} />
      </div>
      <div className="lesson-block-main">
        <BlockBody block={block} />
        {state === 'next' || state === 'waiting' ? (
          <button type="button" className="btn primary small" data-testid="lesson.block.run"
            disabled={state !== 'next' || !ready || busy} onClick={onRun}
            title={state === 'waiting' ? t('lesson.block.waiting') : undefined}>
            {t(LABELS[block.type])}
          </button>
        ) : null}
      </div>
    </div>
  );
});

function BlockStatus({ state }: { state: BlockState }) {
  const t = useT();
  if (state === 'done') return <span className="lesson-block-status ok"><CheckIcon /> {t('lesson.block.done')}</span>;
  if (state === 'auto') return <span className="lesson-block-status">{t('lesson.block.auto')}</span>;
  if (state === 'waiting') return <span className="lesson-block-status dim">{t('lesson.block.waiting')}</span>;
  return null;
}

function BlockBody({ block }: { block: RunBlock | DoBlock | ConfigBlock }) {
  const t = useT();
  if (block.type === 'run') {
    return (
      <pre className="lesson-code" aria-label={t('lesson.block.commands')}>
        {block.text.split('\n').map((line, i) => (
          <span key={i} className="lesson-code-line"><span className="lesson-code-mark" aria-hidden="true">&gt; </span>{line}{'\n'}</span>
        ))}
      </pre>
    );
  }
  if (block.type === 'config') {
    return (
      <pre className="lesson-code">
        {block.settings.map((s, i) => <span key={i} className="lesson-code-line">CONFIG SET {s.name} {s.value}{'\n'}</span>)}
      </pre>
    );
  }
  return (
    <ul className="lesson-actions">
      {block.lines.map((line, i) => <ActionLine key={i} text={line.text} actions={line.actions} />)}
    </ul>
  );
}

/** One line of a do block, described in words (its source as a tooltip). */
export function ActionLine({ text, actions }: { text: string; actions: DoBlock['actions'] }) {
  const t = useT();
  return (
    <li title={text}>
      {actionText(t, actions[0])}
      {actions.length > 1 ? ` × ${actions.length}` : ''}
    </li>
  );
}
