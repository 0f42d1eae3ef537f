import { memo, useCallback, useEffect, useMemo, useRef, useState, type MouseEvent, type PointerEvent } from 'react';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import { drawTimeline, hitTest, layout, timeAt, timelineHeight, type TimelineHit, type TimelineModel } from '../../render/timeline';
import { useLoop, useLoopApi } from './hooks';
import { useLanes } from './lanes';
import { TimelineTip } from './TimelineTip';
import { useCanvas } from '../useCanvas';
import { designRem, drawScale } from '../scale';

/** The timeline's canvas: wheel zooms around the pointer, dragging pans,
 *  dragging along the time axis rewinds, hovering explains. */
export const TimelineCanvas = memo(function TimelineCanvas() {
  const t = useT();
  const loop = useLoopApi();
  const store = useStoreApi();
  const lanes = useLanes();
  const result = useLoop((s) => s.timeline);
  const phase = useLoop((s) => s.phase);
  const conn = useLoop((s) => s.conn);
  const names = useLoop((s) => s.names);
  // The lab's world has no present of the sandbox's: its record is whole.
  const lab = useLoop((s) => s.timelineSource === 'lab');
  const sandboxNow = useAppState((s) => s.snapshot?.now ?? 0);
  const sandboxAtEnd = useAppState((s) => s.snapshot?.history.atEnd ?? true);
  const now = lab ? result?.end ?? 0 : sandboxNow;
  const atEnd = lab || sandboxAtEnd;
  const text = useMemo(() => ({
    poll: t('legend.poll'), read: t('legend.read'), write: t('legend.write'), beforeSleep: t('legend.beforeSleep'),
    cron: t('legend.cron'), future: t('loop.future'), noData: t('loop.empty'), base: t('loop.base'),
  }), [t]);
  const model = useMemo<TimelineModel>(() => {
    let focus: TimelineModel['focus'] = null;
    if (phase) {
      const { items } = phase.iteration;
      focus = {
        node: phase.iteration.node, t0: items.t0[phase.index], t1: items.t1[phase.index],
        iter: [phase.iteration.t0, phase.iteration.t1],
      };
    }
    return { result, lanes, now, atEnd, focus, conn, names, text };
  }, [result, lanes, now, atEnd, phase, conn, names, text]);

  const draw = useCallback((ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number) => {
    drawTimeline(ctx, w, h, dpr, model);
  }, [model]);
  const onWidth = useCallback((w: number) => {
    const plot = w - layout([], drawScale()).gutter;
    loop.setWidth(plot, plot / (window.devicePixelRatio || 1));
  }, [loop]);
  const canvas = useCanvas(draw, onWidth);

  const [hover, setHover] = useState<{ hit: TimelineHit; x: number; y: number } | null>(null);
  const drag = useRef<{ x: number; t0: number; t1: number; scrub: boolean; moved: boolean } | null>(null);
  // Where the pointer is in canvas pixels, and the scale the drawing used
  // (its geometry grows with the type).
  const px = (e: { clientX: number; clientY: number }) => {
    const el = canvas.current!;
    const r = el.getBoundingClientRect();
    const device = window.devicePixelRatio || 1;
    return {
      x: (e.clientX - r.left) * device, y: (e.clientY - r.top) * device, cssX: e.clientX - r.left, cssY: e.clientY - r.top,
      w: el.width, dpr: drawScale(),
    };
  };

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const p = px(e);
      const at = timeAt(model, p.w, p.dpr, p.x);
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const { t0, t1 } = loop.window();
        loop.pan(((e.deltaX || e.deltaY) / 600) * (t1 - t0));
        return;
      }
      loop.zoom(1.25 ** (e.deltaY / 100), at ?? undefined);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  });

  const onDown = useCallback((e: PointerEvent<HTMLCanvasElement>) => {
    const p = px(e);
    const g = layout(model.lanes, p.dpr);
    const { t0, t1 } = loop.window();
    // Dragging along the axis rewinds the sandbox: not its lab's record.
    const scrub = p.y < g.axis && !lab;
    drag.current = { x: p.x, t0, t1, scrub, moved: false };
    e.currentTarget.setPointerCapture(e.pointerId);
    if (scrub) {
      const at = timeAt(model, p.w, p.dpr, p.x);
      if (at !== null) void store.seek(Math.max(0, at));
    }
  }, [model, loop, store, lab]);

  const onMove = useCallback((e: PointerEvent<HTMLCanvasElement>) => {
    const p = px(e);
    const d = drag.current;
    if (d) {
      if (Math.abs(p.x - d.x) > 3 * (window.devicePixelRatio || 1)) d.moved = true;
      if (d.scrub) {
        const at = timeAt(model, p.w, p.dpr, p.x);
        if (at !== null) void store.seek(Math.max(0, at));
      } else if (d.moved) {
        const g = layout(model.lanes, p.dpr);
        const dt = ((p.x - d.x) / (p.w - g.gutter)) * (d.t1 - d.t0);
        loop.setViewport({ t0: d.t0 - dt, t1: d.t1 - dt, follow: false });
      }
      return;
    }
    setHover({ hit: hitTest(model, p.w, p.dpr, p.x, p.y), x: p.cssX, y: p.cssY });
  }, [model, loop, store]);

  const onUp = useCallback(() => {
    drag.current = null;
  }, []);
  const onLeave = useCallback(() => setHover(null), []);
  const onDouble = useCallback((e: MouseEvent<HTMLCanvasElement>) => {
    const p = px(e);
    const at = timeAt(model, p.w, p.dpr, p.x);
    loop.zoom(0.5, at ?? undefined);
  }, [model, loop]);

  const height = designRem(timelineHeight(lanes));
  return (
    <div className="timeline-box">
      <canvas ref={canvas} className="timeline-canvas" data-testid="loop.timeline" role="img"
        aria-label={t('loop.timeline')} style={{ height }} data-mode={result?.mode ?? ''}
        data-source={lab ? 'lab' : 'sandbox'}
        onPointerDown={onDown} onPointerMove={onMove} onPointerUp={onUp} onPointerLeave={onLeave}
        onDoubleClick={onDouble} />
      {hover?.hit && result ? (
        <TimelineTip hit={hover.hit} result={result} lanes={lanes} x={hover.x} y={hover.y}
          width={canvas.current?.clientWidth ?? 0} />
      ) : null}
    </div>
  );
});
