import { memo, useLayoutEffect, useRef } from 'react';
import { useT } from '../../app/hooks';
import type { MdBlock } from '../../lessons/markdown';
import { MdBlocks } from './Markdown';

/** The lesson's introduction, above its first step. It is open where the
 *  step's first action (its block and button) still shows below it without
 *  scrolling; where it would push that out of sight (a projector, presenter
 *  mode, a phone) it folds to its one line, which opens it. What the reader
 *  chooses holds for as long as the step is open. */
export const LessonIntro = memo(function LessonIntro({ nodes }: { nodes: readonly MdBlock[] }) {
  const t = useT();
  const ref = useRef<HTMLDetailsElement>(null);
  /** The state the page last gave it; a toggle to anything else is the
   *  reader's. */
  const given = useRef(true);
  const chosen = useRef(false);
  useLayoutEffect(() => {
    const el = ref.current;
    const body = el?.closest<HTMLElement>('.lesson-body');
    if (!el || !body) return;
    const fit = () => {
      if (chosen.current) return;
      el.open = true;
      const action = body.querySelector('.lesson-step > [data-state="next"]');
      const room = body.getBoundingClientRect().bottom + body.scrollTop;
      given.current = !action || action.getBoundingClientRect().bottom <= room;
      el.open = given.current;
    };
    fit();
    const watch = new ResizeObserver(fit);
    watch.observe(body);
    return () => watch.disconnect();
  }, [nodes]);
  const onToggle = () => {
    if (ref.current && ref.current.open !== given.current) chosen.current = true;
  };
  return (
    <details className="lesson-intro" ref={ref} open onToggle={onToggle} data-testid="lesson.intro">
      <summary>{t('lesson.intro')}</summary>
      <MdBlocks nodes={nodes} />
    </details>
  );
});
