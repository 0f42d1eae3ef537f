import { memo, useCallback, useMemo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { drawSequence, type SequenceModel } from '../../render/sequence';
import { formatDuration } from '../../render/timeaxis';
import { useLessonTarget } from '../lesson/hooks';
import { useLoop, useLoopApi } from './hooks';
import { programName } from './programName';
import type { WorkloadPreset } from '../../../../wasm/protocol';
import { useCanvas } from '../useCanvas';

export const SequencePanel = memo(function SequencePanel() {
  const t = useT();
  const target = useLessonTarget('loop.sequence');
  const hasConn = useLoop((s) => s.conn !== null);
  return (
    <section className="panel loop-sequence" aria-labelledby="seq-title" {...target}>
      <header className="panel-head">
        <h2 id="seq-title">{t('seq.title')}</h2>
        <ConnSelect />
      </header>
      <p className="panel-hint">{t('seq.sub')}</p>
      {hasConn ? <SequenceCanvas /> : <p className="loop-empty">{t('seq.none')}</p>}
    </section>
  );
});

const ConnSelect = memo(function ConnSelect() {
  const t = useT();
  const loop = useLoopApi();
  const conn = useLoop((s) => s.conn);
  const options = useAppState((s) => (s.snapshot?.workloads ?? [])
    .flatMap((w) => w.conns.map((fd) => `${w.id}:${w.preset}:${fd}:${w.spec.command}`)).join(','));
  const onChange = useCallback((v: string) => loop.selectConn(v === '' ? null : Number(v)), [loop]);
  const list = options ? options.split(',').map((o) => o.split(':')) : [];
  return (
    <label className="db-select">
      <span>{t('seq.conn')}</span>
      <select data-testid="seq.conn" value={conn ?? ''} onChange={(e) => onChange(e.target.value)} disabled={!list.length}>
        {list.length ? null : <option value="">{t('seq.noConn')}</option>}
        {list.map(([id, preset, fd, command]) => (
          <option key={fd} value={fd}>{t('seq.option', { preset: programName(t, preset as WorkloadPreset, command), id, fd })}</option>
        ))}
      </select>
    </label>
  );
});

const SequenceCanvas = memo(function SequenceCanvas() {
  const t = useT();
  const view = useLoop((s) => s.sequence);
  const names = useLoop((s) => s.names);
  const workload = useAppState((s) => (view ? s.snapshot?.workloads.find((w) => w.conns.includes(view.fd)) ?? null : null));
  const rttNs = workload?.spec.rttNs ?? 0;
  const model = useMemo<SequenceModel | null>(() => view && workload ? {
    fd: view.fd, client: workload.id, items: view.items, t0: view.t0, t1: view.t1, rttNs, names,
    text: {
      client: t('seq.client', { fd: view.fd }), server: t('seq.server'),
      halfRtt: t('seq.halfRtt', { t: formatDuration(rttNs / 2) }), waiting: t('seq.waiting'),
      latency: t('seq.latency'), commands: t('seq.commands', { n: '{n}' }), empty: t('seq.empty'),
    },
  } : null, [view, workload, rttNs, names, t]);
  const draw = useCallback((ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number) => {
    const placed = model ? drawSequence(ctx, w, h, dpr, model) : [];
    if (!model) ctx.clearRect(0, 0, w, h);
    // The labels' boxes in CSS pixels, for the page's tests.
    const px = window.devicePixelRatio || 1;
    const round = (v: number) => Math.round((v / px) * 10) / 10;
    ctx.canvas.dataset.labels = JSON.stringify(placed.map((b) => ({
      text: b.text, x: round(b.x), y: round(b.y), w: round(b.w), h: round(b.h),
    })));
  }, [model]);
  const canvas = useCanvas(draw);
  return (
    <>
      <canvas ref={canvas} className="sequence-canvas" data-testid="loop.sequence" role="img" aria-label={t('seq.title')}
        data-fd={view?.fd ?? ''} />
      <p className="panel-hint">{t('seq.rtt', { t: formatDuration(rttNs) })}</p>
    </>
  );
});
