import { memo, useCallback } from 'react';
import { useT } from '../../app/hooks';
import { phasesOf } from '../../model/loop';
import { explainItem } from './explain';
import { useLoop, useLoopApi } from './hooks';
import { useLanes } from './lanes';

/** While stepping through phases: which phase of which iteration, and
 *  what it is. */
export const PhaseCaption = memo(function PhaseCaption() {
  const t = useT();
  const loop = useLoopApi();
  const phase = useLoop((s) => s.phase);
  const names = useLoop((s) => s.names);
  const lanes = useLanes();
  const close = useCallback(() => loop.clearPhase(), [loop]);
  if (!phase) return null;
  const lane = lanes.find((l) => l.node === phase.iteration.node);
  if (!lane) return null;
  const phases = phasesOf(phase.iteration);
  const k = phases.indexOf(phase.index);
  const text = explainItem(t, phase.iteration.items, phase.index, lane, names);
  return (
    <div className="phase-caption" role="status" data-testid="loop.phase" data-phase={k + 1} data-phases={phases.length}
      data-iteration={phase.iteration.number}>
      <div className="phase-head">
        <b>{t('phase.title', { k: k + 1, n: phases.length, it: String(phase.iteration.number) })}</b>
        <button type="button" className="btn ghost small" onClick={close}>{t('phase.close')}</button>
      </div>
      <div>{text.title}</div>
      {text.hint ? <div className="dim">{text.hint}</div> : null}
    </div>
  );
});
