// One uPlot chart, the way every chart of the app uses it: created once per
// spec and theme, given new data with setData (the simulation updates it
// many times a second, the chart is never rebuilt for that), sized by a
// ResizeObserver, coloured from the page's CSS variables, and destroyed with
// the component. Its x range is the caller's: `x` is what to show, and a
// drag over the plot or a double click asks the caller (onZoom) to zoom in
// or back out, so a chart with zoom buttons of its own stays the one place
// that decides. Its height, fonts and lines grow with the type (presenter
// mode), as the canvases of views/useCanvas.ts do.
import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './uchart.css';
import { onTypeScale, typeScale } from './scale';

/** What a chart is drawn with: the page's colours and fonts, at the type's
 *  scale (1 normally; lengths in CSS pixels are multiplied by it). */
export interface ChartTheme {
  scale: number;
  text: string;
  dim: string;
  grid: string;
  font: string;
  labelFont: string;
}

export type ChartSpec = (theme: ChartTheme) => Omit<uPlot.Options, 'width' | 'height'>;

/** A vertical line across the plot at x: the world's clock, a percentile. */
export interface Mark {
  x: number;
  color: string;
  dash?: number[];
}

export type Range = [number, number];

interface Props {
  /** The chart's series, scales and axes; a new spec rebuilds the chart,
   *  so callers memoize it. */
  spec: ChartSpec;
  data: uPlot.AlignedData;
  /** The x range shown. */
  x: Range;
  marks?: readonly Mark[];
  /** A drag over the plot selected a range; null: a double click reset. */
  onZoom?: (r: Range | null) => void;
  /** The plot's height in CSS pixels at the normal type size. */
  height: number;
  /** A caption above the chart; without one, `label` names it. */
  title?: string;
  label?: string;
  note?: ReactNode;
  testId: string;
  attrs?: Record<string, string | number>;
  /** Hears the chart's width in CSS pixels after each resize. */
  onWidth?: (px: number) => void;
}

function readTheme(): ChartTheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const scale = typeScale();
  const mono = v('--mono', 'monospace');
  const sans = v('--sans', 'sans-serif');
  return {
    scale,
    text: v('--text-2', '#aab8cc'),
    dim: v('--dim', '#7d8ca3'),
    grid: v('--line', '#24324b'),
    font: `${Math.round(11.5 * scale)}px ${mono}`,
    labelFont: `600 ${Math.round(12 * scale)}px ${sans}`,
  };
}

/** The theme, read again when the type's size or the root's class (presenter
 *  mode) changes. */
function useTheme(): ChartTheme {
  const [theme, setTheme] = useState(readTheme);
  useEffect(() => {
    const update = () => setTheme((old) => {
      const next = readTheme();
      return JSON.stringify(next) === JSON.stringify(old) ? old : next;
    });
    const stop = onTypeScale(update);
    const mo = new MutationObserver(update);
    mo.observe(document.documentElement, { attributes: true, attributeFilter: ['class', 'style'] });
    return () => {
      stop();
      mo.disconnect();
    };
  }, []);
  return theme;
}

/** An axis as wide (or tall) as its widest value needs: what uPlot's
 *  fixed 50 px cannot know of, with values in units and presenter type. */
export function fitAxis(self: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  const axis = self.axes[axisIdx];
  if (cycleNum > 1) return (axis as unknown as { _size: number })._size;
  const font = (axis.font as unknown as string[])[0];
  const scale = typeScale();
  if (axis.side === 0 || axis.side === 2) return Math.ceil((axis.ticks?.size ?? 8) + (axis.gap ?? 5) + 16 * scale);
  let widest = 0;
  self.ctx.font = font;
  for (const v of values ?? []) widest = Math.max(widest, self.ctx.measureText(v).width);
  return Math.ceil((axis.ticks?.size ?? 8) + (axis.gap ?? 5) + widest / (window.devicePixelRatio || 1) + 4);
}

/** The shared look of an axis: the theme's colours and fonts, sized to fit. */
export function axisOf(theme: ChartTheme, a: uPlot.Axis): uPlot.Axis {
  const line = { stroke: theme.grid, width: 1 };
  return {
    stroke: theme.text, font: theme.font, labelFont: theme.labelFont, size: fitAxis,
    labelSize: Math.round(18 * theme.scale), labelGap: 0, gap: 4,
    grid: line, ticks: { ...line, size: 4 }, ...a,
  };
}

function paintMarks(u: uPlot, marks: readonly Mark[]): void {
  const { ctx } = u;
  const { top, height, left, width } = u.bbox;
  const dpr = window.devicePixelRatio || 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  for (const m of marks) {
    const x = Math.round(u.valToPos(m.x, 'x', true));
    if (x < left || x > left + width) continue;
    ctx.strokeStyle = m.color;
    ctx.lineWidth = 1.5 * dpr;
    ctx.setLineDash((m.dash ?? []).map((d) => d * dpr));
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
  }
  ctx.restore();
}

/** What the chart shows, on its element for the page's tests: the ranges
 *  of its scales and the tick labels of its axes as drawn. */
function describe(u: uPlot, el: HTMLElement): void {
  const ticks = (i: number) => ((u.axes[i] as unknown as { _values?: string[] | null })._values ?? []).join('|');
  el.dataset.xMin = String(u.scales.x.min ?? '');
  el.dataset.xMax = String(u.scales.x.max ?? '');
  el.dataset.yMin = String(u.scales.y?.min ?? '');
  el.dataset.yMax = String(u.scales.y?.max ?? '');
  el.dataset.xTicks = ticks(0);
  el.dataset.yTicks = ticks(1);
}

export const UPlotChart = memo(function UPlotChart(props: Props) {
  const { spec, data, x, marks, height } = props;
  const theme = useTheme();
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef({ data, x, marks: marks ?? [], onZoom: props.onZoom, onWidth: props.onWidth });
  latest.current = { data, x, marks: marks ?? [], onZoom: props.onZoom, onWidth: props.onWidth };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const base = spec(theme);
    const hooks: uPlot.Hooks.Arrays = {
      ...base.hooks,
      setSelect: [(u) => {
        const { left, width } = u.select;
        u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        if (width < 3) return;
        latest.current.onZoom?.([u.posToVal(left, 'x'), u.posToVal(left + width, 'x')]);
      }],
      draw: [...(base.hooks?.draw ?? []), (u) => {
        paintMarks(u, latest.current.marks);
        describe(u, el);
      }],
    };
    const opts: uPlot.Options = {
      ...base,
      width: Math.max(1, el.clientWidth),
      height: Math.round(height * theme.scale),
      hooks,
      cursor: {
        ...base.cursor,
        drag: { x: true, y: false, setScale: false },
        bind: {
          dblclick: () => () => {
            latest.current.onZoom?.(null);
            return null;
          },
        },
      },
    };
    const u = new uPlot(opts, latest.current.data, el);
    plot.current = u;
    const [min, max] = latest.current.x;
    u.setScale('x', { min, max });
    const ro = new ResizeObserver(() => {
      const w = Math.max(1, el.clientWidth);
      if (w !== u.width) u.setSize({ width: w, height: u.height });
      latest.current.onWidth?.(w);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [spec, theme, height]);

  // New data, or a new range: the chart is updated, not rebuilt (the
  // range compared by value, as callers make a new pair each render).
  // Setting the x range ranges the y scales again over what it shows.
  useEffect(() => {
    const u = plot.current;
    if (!u) return;
    u.batch(() => {
      if (u.data !== data) u.setData(data, false);
      u.setScale('x', { min: x[0], max: x[1] });
    });
  }, [data, x[0], x[1]]);

  useEffect(() => {
    plot.current?.redraw(false, false);
  }, [marks]);

  return (
    <figure className="uchart" data-testid={props.testId} aria-label={props.title ? undefined : props.label}
      {...Object.fromEntries(Object.entries(props.attrs ?? {}).map(([k, v]) => [`data-${k}`, String(v)]))}>
      {props.title ? (
        <figcaption className="uchart-title">
          <span>{props.title}</span>
          {props.note ? <span className="uchart-note">{props.note}</span> : null}
        </figcaption>
      ) : null}
      <div ref={box} className="uchart-plot" data-testid={`${props.testId}.plot`} />
    </figure>
  );
});
