import { memo, useCallback } from 'react';
import type { LabProgress, SteppedLabName } from '../../../../wasm/protocol';
import { useAppState, useFormatNumber, useT } from '../../app/hooks';
import type { Translate } from '../../i18n';
import { formatDuration } from '../../render/timeaxis';
import { useLoop, useLoopApi } from './hooks';

/** A lab that runs live in a world of its own, a step at a time
 *  (eval-vs-zcard): start and stop, and its three parts as they go. */
export const LiveLabRow = memo(function LiveLabRow({ name }: { name: SteppedLabName }) {
  const t = useT();
  const loop = useLoopApi();
  const seed = useAppState((s) => s.log.config.seed);
  const progress = useLoop((s) => (s.liveLab?.name === name ? s.liveLab : null));
  const running = progress?.state === 'running';
  const start = useCallback(() => void loop.startLiveLab(name, seed), [loop, name, seed]);
  const stop = useCallback(() => void loop.cancelLiveLab(), [loop]);
  return (
    <li className="lab-row live-lab" data-testid={`lab.${name}`}>
      <div className="live-lab-head">
        <span className="lab-name">{t(`lab.name.${name}`)}</span>
        {running ? (
          <button type="button" className="btn small" data-testid={`lab.${name}.stop`} onClick={stop}>
            {t('lab.stop')}
          </button>
        ) : (
          <button type="button" className="btn small primary" data-testid={`lab.${name}.live`}
            title={t('lab.eval.liveHint')} onClick={start}>
            {t('lab.live')}
          </button>
        )}
      </div>
      {progress ? <LiveLabParts progress={progress} /> : <p className="panel-hint">{t('lab.eval.liveHint')}</p>}
    </li>
  );
});

const PARTS = ['load', 'zcard', 'eval'] as const;

/** The run's clocks: the part's virtual time, and the real time taken. */
function statusLine(t: Translate, p: LabProgress): string[] {
  const wall = formatDuration(p.wallMs * 1e6, 2);
  switch (p.state) {
    case 'running':
      return [
        ...(p.part === 'load' ? [] : [t('lab.eval.virtual', { t: formatDuration(p.nowNs - p.partFromNs) })]),
        t('lab.eval.wall', { t: wall }),
      ];
    case 'done':
      return [t('lab.eval.doneIn', { t: wall })];
    case 'cancelled':
      return [t('lab.eval.cancelled', { t: wall })];
    case 'failed':
      return [t('lab.error', { msg: p.error ?? '' })];
  }
}

const LiveLabParts = memo(function LiveLabParts({ progress: p }: { progress: LabProgress }) {
  const t = useT();
  const num = useFormatNumber();
  const at = p.part === 'done' ? PARTS.length : PARTS.indexOf(p.part);
  return (
    <div className="live-lab-progress" data-testid={`lab.${p.name}.progress`} data-state={p.state} data-part={p.part}>
      <ol className="live-lab-parts">
        {PARTS.map((part, i) => {
          const state = i < at ? 'done' : i === at ? (p.state === 'running' ? 'running' : p.state) : 'pending';
          const share = i < at ? 1 : i === at && p.total ? p.done / p.total : 0;
          return (
            <li key={part} className={`live-lab-part ${state}`} data-part={part} data-state={state}>
              <span className="live-lab-label">{t(`lab.eval.part.${part}`, { n: p.keys })}</span>
              <span className="live-lab-bar" aria-hidden="true"><span style={{ width: `${(share * 100).toFixed(1)}%` }} /></span>
              <span className="live-lab-count">
                {i === at && p.state === 'running' && part !== 'eval'
                  ? t('lab.eval.count', { done: num(p.done), total: num(p.total) })
                  : t(`lab.eval.state.${state}`)}
              </span>
            </li>
          );
        })}
      </ol>
      <p className="panel-hint live-lab-status">{statusLine(t, p).join(' · ')}</p>
    </div>
  );
});
