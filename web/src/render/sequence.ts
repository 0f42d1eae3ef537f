// Draws a sequence diagram of one client connection: the client program
// on the left, the server on the right, virtual time running down. A pure
// function of the connection's items from the trace.
//
// A batch leaves the client when its write(2) returns; it reaches the
// server half a round trip later (the link's one-way delay, drawn solid),
// then waits in the server's receive buffer (dashed) until the server's
// loop reads it; the commands run; beforeSleep writes the replies, which
// cross back the same way. The bracket on the left is the latency the
// client measured for the batch.
//
// Every label is measured before it is drawn and goes where its box is
// clear of the others (render/sequence.ts Labels): the rooms of the axis,
// the brackets and the server's side are as wide as their text, and a
// label with no free place is left out rather than drawn over another.
import { TimelineItem as K, type LaneItems } from '../../../wasm/protocol';
import { formatDuration, ticks } from './timeaxis';
import { loopPalette } from './timeline';
import { canvasFont, canvasMono } from './fonts';

export interface SequenceText {
  client: string;
  server: string;
  halfRtt: string;
  waiting: string;
  latency: string;
  commands: string;
  empty: string;
}

export interface SequenceModel {
  fd: number;
  /** The client program's host (node id). */
  client: number;
  items: LaneItems[];
  t0: number;
  t1: number;
  /** Round trip of the connection's link (the workload's spec). */
  rttNs: number;
  names: Record<number, string>;
  text: SequenceText;
}

interface Span {
  t0: number;
  t1: number;
  n: number;
  x: number;
}

function spans(l: LaneItems | undefined, kind: number): Span[] {
  const out: Span[] = [];
  if (!l) return out;
  for (let i = 0; i < l.count; i++) {
    if (l.kind[i] === kind) out.push({ t0: l.t0[i], t1: l.t1[i], n: l.n[i], x: l.x[i] });
  }
  return out;
}

/** Spans closer than `gap` ns merged into one: t0 of the first, t1 of the
 *  last, n summed, x = how many calls were merged. */
function bursts(list: Span[], gap: number): Span[] {
  const out: Span[] = [];
  for (const s of list) {
    const last = out[out.length - 1];
    if (last && s.t0 - last.t1 <= gap) {
      last.t1 = Math.max(last.t1, s.t1);
      last.n += s.n;
      last.x += 1;
    } else {
      out.push({ t0: s.t0, t1: s.t1, n: s.n, x: 1 });
    }
  }
  return out;
}

function bytes(n: number): string {
  if (n < 10_000) return `${n} B`;
  if (n < 10_000_000) return `${Math.round(n / 1024)} KB`;
  return `${Math.round(n / 1048576)} MB`;
}

/** The client's requests as the diagram draws them: its writes, those
 *  closer than `gap` ns merged into bursts, each with the bytes it carried
 *  and the commands (null when no send of the trace tells). */
export function requestBursts(client: LaneItems, gap: number): { t0: number; t1: number; bytes: number;
  commands: number | null }[] {
  const sends = spans(client, K.SEND);
  return bursts(spans(client, K.WRITE), gap).map((wr) => ({
    t0: wr.t0, t1: wr.t1, bytes: wr.n, commands: commandsOf(sends, wr),
  }));
}

/** The commands a burst of writes carried: those of the sends that began
 *  inside it (a send is a batch, or one flush of a batch that leaves in
 *  several, one write each), or else those of the batch whose bytes it
 *  goes on writing; null if no send is known. */
function commandsOf(sends: Span[], wr: Span): number | null {
  let n = 0;
  let inside = false;
  for (const s of sends) {
    if (s.t0 >= wr.t0 - 1 && s.t0 <= wr.t1) {
      n += s.n;
      inside = true;
    }
  }
  if (inside) return n;
  const before = [...sends].reverse().find((s) => s.t0 <= wr.t0 + 1);
  return before ? before.n : null;
}

/** The first span that starts at or after t. */
function firstFrom(list: Span[], t: number): Span | null {
  for (const s of list) if (s.t0 >= t - 1) return s;
  return null;
}

/** A label as drawn: its text and its box, in canvas pixels. */
export interface LabelBox {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The labels placed so far: a label goes where its box, measured from
 *  its text, is inside the canvas and `gap` clear of every other (two
 *  labels end to end would read as one); where no candidate place is, it
 *  is left out rather than drawn over another. */
class Labels {
  readonly placed: LabelBox[] = [];
  private readonly w: number;
  private readonly h: number;
  private readonly gap: number;

  constructor(w: number, h: number, gap: number) {
    this.w = w;
    this.h = h;
    this.gap = gap;
  }

  free(b: LabelBox): boolean {
    if (b.x < 0 || b.y < 0 || b.x + b.w > this.w || b.y + b.h > this.h) return false;
    const g = this.gap;
    return this.placed.every((p) => b.x >= p.x + p.w + g || p.x >= b.x + b.w + g
      || b.y >= p.y + p.h + g || p.y >= b.y + b.h + g);
  }

  /** The first free box of the candidates, taken; null if none is. */
  take(candidates: LabelBox[]): LabelBox | null {
    const b = candidates.find((c) => this.free(c)) ?? null;
    if (b) this.placed.push(b);
    return b;
  }
}

/** The box of `text` in the current font with its top-left corner at
 *  (x, y), `lineH` tall. */
function boxAt(ctx: CanvasRenderingContext2D, text: string, x: number, y: number, lineH: number): LabelBox {
  return { text, x, y, w: ctx.measureText(text).width, h: lineH };
}

/** Draws text at a box taken for it, on a backing of the background's
 *  colour, so that a line under it does not cross its letters. */
function write(ctx: CanvasRenderingContext2D, b: LabelBox, color: string): void {
  ctx.fillStyle = BACKING;
  ctx.fillRect(b.x, b.y, b.w, b.h);
  ctx.fillStyle = color;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.fillText(b.text, b.x, b.y + b.h / 2);
}

/** Where the diagram's parts go across the canvas: the time axis's
 *  labels, the latency brackets, the two lifelines. Each room is measured
 *  from the text it holds. */
interface Layout {
  dpr: number;
  /** Left edge of the grid lines. */
  left: number;
  bracket: number;
  cx: number;
  sx: number;
  head: number;
  top: number;
  bottom: number;
  Y: (t: number) => number;
  from: number;
  until: number;
}

const LABEL_PX = 12;
const BACKING = 'rgba(11, 18, 32, 0.82)';
const SMALL_PX = 11;

export function drawSequence(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number,
  m: SequenceModel): LabelBox[] {
  ctx.save();
  ctx.fillStyle = loopPalette.background;
  ctx.fillRect(0, 0, w, h);
  const labels = new Labels(w, h, 4 * dpr);
  const server = m.items.find((l) => l.node === 0);
  const client = m.items.find((l) => l.node === m.client);
  const head = 34 * dpr;
  const top = head + 18 * dpr;
  const bottom = h - 14 * dpr;
  const sends = spans(client, K.SEND).filter((s) => s.t0 >= m.t0);
  const from = sends.length ? Math.min(sends[0].t0, m.t0) : m.t0;
  const until = Math.max(m.t1, from + 1);
  const Y = (t: number) => top + ((t - from) / (until - from)) * (bottom - top);
  const gap = (6 * dpr * (until - from)) / Math.max(1, bottom - top);
  const execRuns = execRunsOf(spans(server, K.EXEC), Y, dpr, m.names);
  const g = layout(ctx, w, dpr, { head, top, bottom, Y, from, until }, m, execRuns);

  // The lifelines' heads are drawn last, over what began before the
  // window; their places are taken first.
  const heads = [lifelineHead(ctx, g.cx, g, m.text.client, labels, w), lifelineHead(ctx, g.sx, g, m.text.server, labels, w)];
  drawAxis(ctx, g, w, labels);
  lifeline(ctx, g.cx, g);
  lifeline(ctx, g.sx, g);
  if (!client || !server) {
    for (const b of heads) paintHead(ctx, b, dpr);
    ctx.fillStyle = loopPalette.textDim;
    ctx.font = canvasFont(14 * dpr);
    ctx.textAlign = 'center';
    ctx.fillText(m.text.empty, w / 2, (top + bottom) / 2, w - 20 * dpr);
    ctx.restore();
    return labels.placed;
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, head, w, h - head);
  ctx.clip();
  const half = m.rttNs / 2;
  // Calls a few pixels apart (a big batch written or read 16 KB at a time)
  // are drawn as one burst, labelled with their total.
  const cWrites = requestBursts(client, gap);
  const cReadCalls = spans(client, K.READ);
  const sReadCalls = spans(server, K.READ);
  const sWrites = bursts(spans(server, K.WRITE), gap);

  // Calls on the lifelines.
  for (const s of bursts(sReadCalls, gap)) bar(ctx, g.sx, Y(s.t0), Y(s.t1), loopPalette.read, dpr);
  for (const r of execRuns) bar(ctx, g.sx + 10 * dpr, r.y0, r.y1, loopPalette.exec, dpr);
  for (const s of sWrites) bar(ctx, g.sx, Y(s.t0), Y(s.t1), loopPalette.write, dpr);
  for (const s of cWrites) bar(ctx, g.cx, Y(s.t0), Y(s.t1), loopPalette.send, dpr);
  for (const s of bursts(cReadCalls, gap)) bar(ctx, g.cx, Y(s.t0), Y(s.t1), loopPalette.read, dpr);

  // Requests: client write -> (half a round trip) -> receive buffer -> read;
  // replies: server write -> half a round trip -> client read. Lines first,
  // then their labels, the requests' first.
  const arrows: { x0: number; y0: number; x1: number; y1: number; label: string }[] = [];
  const waits: { x: number; y0: number; y1: number; label: string }[] = [];
  for (const wr of cWrites) {
    if (wr.t0 < from) continue;
    const arrive = wr.t1 + half;
    const read = firstFrom(sReadCalls, arrive);
    const n = wr.commands;
    const label = n !== null ? `${m.text.commands.replace('{n}', String(n))} · ${bytes(wr.bytes)}` : bytes(wr.bytes);
    arrow(ctx, g.cx, Y(wr.t1), g.sx, Y(arrive), loopPalette.send, dpr);
    arrows.push({ x0: g.cx, y0: Y(wr.t1), x1: g.sx, y1: Y(arrive), label });
    if (read && read.t0 > arrive) waits.push({ x: g.sx, y0: Y(arrive), y1: Y(read.t0), label: m.text.waiting });
  }
  for (const wr of sWrites) {
    if (wr.t0 < from) continue;
    const arrive = wr.t1 + half;
    const read = firstFrom(cReadCalls, arrive);
    arrow(ctx, g.sx, Y(wr.t1), g.cx, Y(arrive), loopPalette.write, dpr);
    arrows.push({ x0: g.sx, y0: Y(wr.t1), x1: g.cx, y1: Y(arrive), label: bytes(wr.n) });
    if (read && read.t0 > arrive) waits.push({ x: g.cx, y0: Y(arrive), y1: Y(read.t0), label: '' });
  }
  for (const wt of waits) waiting(ctx, wt.x, wt.y0, wt.y1, dpr);
  for (const a of arrows) arrowLabel(ctx, a, g, labels);
  for (const r of execRuns) execLabel(ctx, r, g, labels);
  drawLatencies(ctx, spans(client, K.DONE), g, m.text.latency, labels);
  for (const wt of waits) if (wt.label) waitingLabel(ctx, wt, g, labels);
  // Half a round trip is the same on every request: said once, under the
  // first request arrow with room for it.
  if (m.rttNs > 0) {
    for (const a of arrows.filter((r) => r.x0 === g.cx)) {
      if (noteLabel(ctx, a, m.text.halfRtt, g, labels)) break;
    }
  }
  ctx.restore();
  for (const b of heads) paintHead(ctx, b, dpr);
  ctx.restore();
  return labels.placed;
}

/** A run of commands (the trace's commands one after another, merged by
 *  the worker; n = how many), merged further where closer than 12 design
 *  pixels, with the command that ran most in it. */
interface ExecRun {
  y0: number;
  y1: number;
  n: number;
  cmd: number;
  most: number;
  label: string;
}

function execRunsOf(execs: Span[], Y: (t: number) => number, dpr: number, names: Record<number, string>): ExecRun[] {
  const out: ExecRun[] = [];
  for (const e of execs) {
    const y0 = Y(e.t0);
    const y1 = Y(e.t1);
    const run = out[out.length - 1];
    if (run && y0 - run.y1 < 12 * dpr) {
      run.y1 = Math.max(run.y1, y1);
      run.n += e.n;
      if (e.n > run.most) {
        run.most = e.n;
        run.cmd = e.x;
      }
    } else {
      out.push({ y0, y1, n: e.n, cmd: e.x, most: e.n, label: '' });
    }
  }
  for (const r of out) r.label = `${names[r.cmd] ?? `#${r.cmd}`} ×${r.n}`;
  return out;
}

function layout(ctx: CanvasRenderingContext2D, w: number, dpr: number,
  v: Pick<Layout, 'head' | 'top' | 'bottom' | 'Y' | 'from' | 'until'>, m: SequenceModel, execs: ExecRun[]): Layout {
  ctx.font = canvasMono(11.5 * dpr);
  let axisW = 0;
  for (const d of axisTicks(v.from, v.until, v.top, v.bottom, dpr)) {
    axisW = Math.max(axisW, ctx.measureText(`+${formatDuration(d)}`).width);
  }
  const left = axisW + 14 * dpr;
  // The latency labels run up their brackets: one line of text wide.
  const bracket = left + 8 * dpr + LABEL_PX * 1.3 * dpr + 6 * dpr;
  ctx.font = canvasFont(14 * dpr, 700);
  const clientHead = ctx.measureText(m.text.client).width / 2 + 12 * dpr;
  const cx = Math.max(bracket + 24 * dpr, left + clientHead);
  // The server's lifeline leaves room on its right for the commands run
  // and "waiting to be read", as wide as they are, but never more than
  // two fifths of what is right of the client's.
  ctx.font = canvasFont(SMALL_PX * dpr, 600);
  let rightW = 0;
  for (const r of execs) rightW = Math.max(rightW, ctx.measureText(r.label).width);
  ctx.font = canvasFont(SMALL_PX * dpr);
  rightW = Math.max(rightW, ctx.measureText(m.text.waiting).width);
  const room = Math.min(rightW + 26 * dpr, (w - cx) * 0.4);
  return { dpr, left, bracket, cx, sx: w - room, ...v };
}

function axisTicks(t0: number, t1: number, top: number, bottom: number, dpr: number): number[] {
  return ticks(0, t1 - t0, Math.max(2, Math.floor((bottom - top) / (48 * dpr)))).at;
}

function drawAxis(ctx: CanvasRenderingContext2D, g: Layout, w: number, labels: Labels): void {
  const { dpr } = g;
  ctx.font = canvasMono(11.5 * dpr);
  for (const d of axisTicks(g.from, g.until, g.top, g.bottom, dpr)) {
    const y = Math.round(g.Y(g.from + d));
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(g.left, y, w - g.left, 1);
    const text = `+${formatDuration(d)}`;
    const lineH = 14 * dpr;
    const tw = ctx.measureText(text).width;
    const b = labels.take([boxAt(ctx, text, g.left - 8 * dpr - tw, y - lineH / 2, lineH)]);
    if (b) write(ctx, b, loopPalette.axis);
  }
}

function lifeline(ctx: CanvasRenderingContext2D, x: number, g: Layout): void {
  const { dpr } = g;
  ctx.strokeStyle = '#475569';
  ctx.lineWidth = 2 * dpr;
  ctx.setLineDash([6 * dpr, 4 * dpr]);
  ctx.beginPath();
  ctx.moveTo(x, g.head);
  ctx.lineTo(x, g.bottom);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** The place of a lifeline's head: whole inside the canvas, near its line. */
function lifelineHead(ctx: CanvasRenderingContext2D, x: number, g: Layout, label: string, labels: Labels,
  w: number): LabelBox {
  const { dpr, head } = g;
  ctx.font = canvasFont(14 * dpr, 700);
  const tw = ctx.measureText(label).width + 20 * dpr;
  const x0 = Math.max(dpr, Math.min(w - tw - dpr, x - tw / 2));
  const b = { text: label, x: x0, y: 4 * dpr, w: tw, h: head - 8 * dpr };
  labels.placed.push(b);
  return b;
}

function paintHead(ctx: CanvasRenderingContext2D, b: LabelBox, dpr: number): void {
  ctx.fillStyle = '#1a2741';
  ctx.fillRect(b.x, b.y, b.w, b.h);
  ctx.strokeStyle = '#34466a';
  ctx.lineWidth = dpr;
  ctx.strokeRect(b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
  ctx.font = canvasFont(14 * dpr, 700);
  ctx.fillStyle = loopPalette.text;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(b.text, b.x + b.w / 2, b.y + b.h / 2);
}

function bar(ctx: CanvasRenderingContext2D, x: number, y0: number, y1: number, color: string, dpr: number): void {
  ctx.fillStyle = color;
  ctx.fillRect(x - 5 * dpr, y0, 10 * dpr, Math.max(2 * dpr, y1 - y0));
}

function arrow(ctx: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number, color: string,
  dpr: number): void {
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 2 * dpr;
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
  const a = Math.atan2(y1 - y0, x1 - x0);
  const s = 9 * dpr;
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - s * Math.cos(a - 0.4), y1 - s * Math.sin(a - 0.4));
  ctx.lineTo(x1 - s * Math.cos(a + 0.4), y1 - s * Math.sin(a + 0.4));
  ctx.closePath();
  ctx.fill();
}

/** Vertical offsets to try for a label, nearest first: 0, then steps
 *  of `step` up and down, as far as `far`. */
function nudges(step: number, far: number): number[] {
  const out = [0];
  for (let d = step; d <= far; d += step) out.push(-d, d);
  return out;
}

/** An arrow's label, level, above the middle of the arrow, or moved up or
 *  down a line or two where another label is. */
function arrowLabel(ctx: CanvasRenderingContext2D, a: { x0: number; y0: number; x1: number; y1: number;
  label: string }, g: Layout, labels: Labels): void {
  const { dpr } = g;
  ctx.font = canvasFont(LABEL_PX * dpr, 600);
  const lineH = LABEL_PX * 1.3 * dpr;
  const tw = ctx.measureText(a.label).width;
  const mx = Math.max(g.cx + 8 * dpr, Math.min(g.sx - 8 * dpr - tw, (a.x0 + a.x1) / 2 - tw / 2));
  const my = (a.y0 + a.y1) / 2 - 3 * dpr - lineH;
  const b = labels.take(nudges(lineH * 0.5, lineH * 2).map((d) => boxAt(ctx, a.label, mx, my + d, lineH)));
  if (b) write(ctx, b, loopPalette.text);
}

/** "½ RTT = 50 µs" under a request arrow. */
function noteLabel(ctx: CanvasRenderingContext2D, a: { x0: number; y0: number; x1: number; y1: number },
  text: string, g: Layout, labels: Labels): boolean {
  const { dpr } = g;
  ctx.font = canvasFont(LABEL_PX * dpr, 600);
  const lineH = LABEL_PX * 1.3 * dpr;
  const tw = ctx.measureText(text).width;
  const mx = Math.max(g.cx + 8 * dpr, Math.min(g.sx - 8 * dpr - tw, (a.x0 + a.x1) / 2 - tw / 2));
  const b = labels.take([0, lineH * 0.5].map((d) => boxAt(ctx, text, mx, (a.y0 + a.y1) / 2 + 3 * dpr + d, lineH)));
  if (b) write(ctx, b, loopPalette.textDim);
  return b !== null;
}

function execLabel(ctx: CanvasRenderingContext2D, r: ExecRun, g: Layout, labels: Labels): void {
  const { dpr } = g;
  ctx.font = canvasFont(SMALL_PX * dpr, 600);
  const lineH = SMALL_PX * 1.3 * dpr;
  const y = (r.y0 + r.y1) / 2 - lineH / 2;
  const b = labels.take(nudges(lineH * 0.5, lineH * 1.5).map((d) => boxAt(ctx, r.label, g.sx + 18 * dpr, y + d, lineH)));
  if (b) write(ctx, b, loopPalette.exec);
}

/** The latency of each batch, as the client measured it: a bracket from
 *  its first write to its last reply, labelled up its side ("latency
 *  6.07 ms", or just the time where the whole would not fit). */
function drawLatencies(ctx: CanvasRenderingContext2D, dones: Span[], g: Layout, word: string, labels: Labels): void {
  const { dpr, Y } = g;
  const x = g.bracket;
  for (const d of dones) {
    const start = d.t0 - d.x;
    if (start < g.from - 1) continue;
    const y0 = Y(start);
    const y1 = Y(d.t0);
    ctx.strokeStyle = loopPalette.exec;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    ctx.moveTo(x + 6 * dpr, y0);
    ctx.lineTo(x, y0);
    ctx.lineTo(x, y1);
    ctx.lineTo(x + 6 * dpr, y1);
    ctx.stroke();
    ctx.font = canvasFont(LABEL_PX * dpr, 600);
    const lineH = LABEL_PX * 1.3 * dpr;
    const mid = (y0 + y1) / 2;
    // Turned a quarter: the box is as tall as the text is long. Centred
    // on the bracket, or from its top, or up to its bottom.
    const b = labels.take([`${word} ${formatDuration(d.x)}`, formatDuration(d.x)].flatMap((text) => {
      const tw = ctx.measureText(text).width;
      return [mid - tw / 2, y0, y1 - tw].map((y) => ({ text, x: x - 4 * dpr - lineH, y, w: lineH, h: tw }));
    }));
    if (!b) continue;
    ctx.fillStyle = BACKING;
    ctx.fillRect(b.x, b.y, b.w, b.h);
    ctx.save();
    ctx.translate(b.x + b.w / 2, b.y + b.h / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillStyle = loopPalette.exec;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(b.text, 0, 0);
    ctx.restore();
  }
}

/** A dashed stretch beside a lifeline: bytes that have arrived and wait
 *  in the receive buffer for the host's loop to read them. */
function waiting(ctx: CanvasRenderingContext2D, x: number, y0: number, y1: number, dpr: number): void {
  if (y1 - y0 < 3 * dpr) return;
  ctx.strokeStyle = loopPalette.textDim;
  ctx.lineWidth = 2 * dpr;
  ctx.setLineDash([3 * dpr, 3 * dpr]);
  ctx.beginPath();
  ctx.moveTo(x + 12 * dpr, y0);
  ctx.lineTo(x + 12 * dpr, y1);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** "waiting to be read", whole, beside the dashed stretch: right of the
 *  server's lifeline where it fits, else left of it. */
function waitingLabel(ctx: CanvasRenderingContext2D, wt: { x: number; y0: number; y1: number; label: string },
  g: Layout, labels: Labels): void {
  const { dpr } = g;
  if (wt.y1 - wt.y0 < 3 * dpr) return;
  ctx.font = canvasFont(SMALL_PX * dpr);
  const lineH = SMALL_PX * 1.3 * dpr;
  const tw = ctx.measureText(wt.label).width;
  const y = (wt.y0 + wt.y1) / 2 - lineH / 2;
  const xs = [wt.x + 18 * dpr, wt.x - 10 * dpr - tw];
  const b = labels.take(xs.flatMap((x) => nudges(lineH * 0.5, lineH).map((d) => boxAt(ctx, wt.label, x, y + d, lineH))));
  if (b) write(ctx, b, loopPalette.textDim);
}
