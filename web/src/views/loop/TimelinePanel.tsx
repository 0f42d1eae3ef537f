import { memo, useCallback } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { formatDuration } from '../../render/timeaxis';
import { loopPalette } from '../../render/timeline';
import { useLessonTarget } from '../lesson/hooks';
import { useLoop, useLoopApi } from './hooks';
import { PhaseCaption } from './PhaseCaption';
import { TimelineCanvas } from './TimelineCanvas';
import { MinusIcon, PlusIcon } from '../../shell/icons';

export const TimelinePanel = memo(function TimelinePanel() {
  const t = useT();
  const target = useLessonTarget('loop.timeline');
  const lost = useAppState((s) => s.snapshot?.traceLost ?? 0);
  return (
    <section className="panel loop-timeline" aria-labelledby="timeline-title" {...target}>
      <header className="panel-head">
        <h2 id="timeline-title">{t('loop.timeline')}</h2>
        <span className="panel-sub">{t('loop.timelineSub')}</span>
        <TimelineToolbar />
      </header>
      <LabSourceNote />
      <TimelineCanvas />
      <div className="timeline-foot">
        <TimelineLegend />
        <WindowInfo />
      </div>
      {lost ? <p className="panel-hint warn">{t('loop.lost', { n: lost })}</p> : null}
      <PhaseCaption />
    </section>
  );
});

const TimelineToolbar = memo(function TimelineToolbar() {
  const t = useT();
  const loop = useLoopApi();
  const follow = useLoop((s) => s.viewport.follow);
  const lab = useLoop((s) => s.timelineSource === 'lab');
  const zoomIn = useCallback(() => loop.zoom(0.5), [loop]);
  const zoomOut = useCallback(() => loop.zoom(2), [loop]);
  const fit = useCallback(() => loop.fit(), [loop]);
  const toggle = useCallback(() => loop.follow(!follow), [loop, follow]);
  return (
    <div className="toolbar">
      <button type="button" className="btn small" data-testid="loop.zoomIn" title={t('loop.zoomIn')}
        aria-label={t('loop.zoomIn')} onClick={zoomIn}><PlusIcon /></button>
      <button type="button" className="btn small" data-testid="loop.zoomOut" title={t('loop.zoomOut')}
        aria-label={t('loop.zoomOut')} onClick={zoomOut}><MinusIcon /></button>
      <button type="button" className="btn small" data-testid="loop.fit" onClick={fit}>{t('loop.fit')}</button>
      <button type="button" className={`btn small ${follow ? 'on' : ''}`} data-testid="loop.follow" aria-pressed={follow}
        title={t('loop.followHint')} onClick={toggle} disabled={lab}>
        {t('loop.follow')}
      </button>
    </div>
  );
});

/** When the timeline shows the stepped lab's world instead of the
 *  sandbox's: what it is, and the way back. */
const LabSourceNote = memo(function LabSourceNote() {
  const t = useT();
  const loop = useLoopApi();
  const lab = useLoop((s) => s.timelineSource === 'lab');
  const back = useCallback(() => loop.showSandboxTimeline(), [loop]);
  const freeze = useCallback(() => loop.showLabTimeline(), [loop]);
  if (!lab) return null;
  const run = loop.labEvalRun();
  return (
    <div className="timeline-source" data-testid="loop.labSource">
      <p>
        {t('lab.eval.timelineNote', {
          name: t('lab.name.eval-vs-zcard'),
          t: run ? formatDuration(run.server.longest_iteration.ms * 1e6) : '—',
        })}
      </p>
      <button type="button" className="btn small" data-testid="loop.labFreeze" onClick={freeze}>
        {t('lab.eval.showFreeze')}
      </button>
      <button type="button" className="btn small primary" data-testid="loop.backToSandbox" onClick={back}>
        {t('lab.eval.backToSandbox')}
      </button>
    </div>
  );
});

const LEGEND = [
  ['legend.poll', loopPalette.poll],
  ['legend.read', loopPalette.read],
  ['legend.exec', loopPalette.exec],
  ['legend.beforeSleep', loopPalette.beforeSleep],
  ['legend.write', loopPalette.write],
  ['legend.cron', loopPalette.cron],
  ['legend.send', loopPalette.send],
  ['legend.done', loopPalette.done],
  ['legend.refused', loopPalette.refused],
] as const;

const TimelineLegend = memo(function TimelineLegend() {
  const t = useT();
  return (
    <ul className="legend">
      {LEGEND.map(([key, color]) => (
        <li key={key}>
          <span className="swatch" style={{ background: color }} aria-hidden="true" />
          {t(key)}
        </li>
      ))}
      <li>
        <span className="swatch sleep" aria-hidden="true" />
        {t('legend.sleep')}
      </li>
    </ul>
  );
});

const WindowInfo = memo(function WindowInfo() {
  const t = useT();
  const r = useLoop((s) => s.timeline);
  // The lab's record cannot be rewound: its world is gone.
  const howto = useLoop((s) => (s.timelineSource === 'lab' ? 'loop.howtoLab' : 'loop.howto'));
  if (!r) return <span className="window-info dim">{t(howto)}</span>;
  const span = r.t1 - r.t0;
  return (
    <span className="window-info" data-testid="loop.window" data-mode={r.mode}>
      {t('loop.span', { t: formatDuration(span) })} · {t('loop.perPixel', { t: formatDuration(span / r.px) })}
      {' · '}{r.mode === 'bins' ? t('loop.summed') : t('loop.exact')}
      <span className="dim"> · {t(howto)}</span>
    </span>
  );
});
