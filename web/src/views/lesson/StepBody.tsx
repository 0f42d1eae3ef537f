import { memo, useEffect, useRef } from 'react';
import { useT } from '../../app/hooks';
import { clickBlocks } from '../../lessons/plan';
import { isActionBlock, type Block, type Lesson } from '../../lessons/types';
import { ActionBlockView, type BlockState } from './ActionBlockView';
import { useLesson } from './hooks';
import { LessonIntro } from './LessonIntro';
import { MdBlocks } from './Markdown';
import { PredictView } from './PredictView';
import { revealInside } from './reveal';

/** One step: its prose and its blocks, in the order the file has them. */
export const StepBody = memo(function StepBody({ lesson, step }: { lesson: Lesson; step: number }) {
  const t = useT();
  const ran = useLesson((s) => s.active?.ran ?? 0);
  const root = useRef<HTMLDivElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // After a block runs, bring the next one into sight (not on the step's first render).
    if (first.current) {
      first.current = false;
      return;
    }
    const next = root.current?.querySelector('.lesson-block.next');
    if (next) revealInside(next);
  }, [ran]);
  const s = lesson.steps[step];
  const order = clickBlocks(s).map((b) => b.key);
  const stateOf = (b: Block): BlockState => {
    if ('auto' in b && b.auto) return 'auto';
    const n = order.indexOf(b.key);
    return n < ran ? 'done' : n === ran ? 'next' : 'waiting';
  };
  // A question is a gate: what follows it (the prose that discusses the
  // result, the next question) stays hidden until it has been answered, so
  // that nothing on screen gives its answer away.
  const gate = s.items.findIndex((item) => item.kind === 'block' && item.block.type === 'predict'
    && stateOf(item.block) !== 'done');
  const shown = gate < 0 ? s.items : s.items.slice(0, gate + 1);
  const hidden = gate >= 0 && s.items.slice(gate + 1).some((item) => item.kind === 'prose' || isActionBlock(item.block));
  return (
    <div className="lesson-step" data-testid="lesson.step" data-step={step} ref={root}>
      {step === 0 && lesson.intro.length ? <LessonIntro nodes={lesson.intro} /> : null}
      <h3 className="lesson-step-title" data-testid="lesson.step.title">{s.title}</h3>
      {shown.map((item, i) => {
        if (item.kind === 'prose') return <MdBlocks key={i} nodes={item.nodes} />;
        const b = item.block;
        if (b.type === 'predict') return <PredictView key={b.key} block={b} state={stateOf(b)} />;
        if (b.type === 'run' || b.type === 'do' || b.type === 'config') return <ActionBlockView key={b.key} block={b} state={stateOf(b)} />;
        return null;
      })}
      {hidden ? (
        <p className="lesson-gate dim" data-testid="lesson.gate">{t('lesson.gate')}</p>
      ) : null}
    </div>
  );
});
