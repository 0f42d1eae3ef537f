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

export function drawSequence(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, m: SequenceModel): void {
  ctx.save();
  ctx.fillStyle = loopPalette.background;
  ctx.fillRect(0, 0, w, h);
  const server = m.items.find((l) => l.node === 0);
  const client = m.items.find((l) => l.node === m.client);
  const head = 34 * dpr;
  const top = head + 18 * dpr;
  const bottom = h - 14 * dpr;
  const left = 78 * dpr;
  const cx = left + 84 * dpr;
  const sx = w - 96 * dpr;
  const sends = spans(client, K.SEND).filter((s) => s.t0 >= m.t0);
  const from = sends.length ? Math.min(sends[0].t0, m.t0) : m.t0;
  const until = Math.max(m.t1, from + 1);
  const Y = (t: number) => top + ((t - from) / (until - from)) * (bottom - top);

  drawAxis(ctx, from, until, Y, left, w, dpr, top, bottom);
  drawLifeline(ctx, cx, head, bottom, `${m.text.client}`, dpr);
  drawLifeline(ctx, sx, head, bottom, m.text.server, dpr);
  if (!client || !server) {
    ctx.fillStyle = loopPalette.textDim;
    ctx.font = canvasFont(14 * dpr);
    ctx.textAlign = 'center';
    ctx.fillText(m.text.empty, w / 2, (top + bottom) / 2);
    ctx.restore();
    return;
  }
  const half = m.rttNs / 2;
  // Calls a few pixels apart (a big batch written or read 16 KB at a time)
  // are drawn as one burst, labelled with their total.
  const gap = (6 * dpr * (until - from)) / Math.max(1, bottom - top);
  const cWrites = requestBursts(client, gap);
  const cReadCalls = spans(client, K.READ);
  const cReads = bursts(cReadCalls, gap);
  const sReadCalls = spans(server, K.READ);
  const sReads = bursts(sReadCalls, gap);
  const sWrites = bursts(spans(server, K.WRITE), gap);
  const execs = spans(server, K.EXEC);
  const dones = spans(client, K.DONE);

  // Calls on the lifelines.
  for (const s of sReads) bar(ctx, sx, Y(s.t0), Y(s.t1), loopPalette.read, dpr);
  drawExecs(ctx, sx, execs, Y, dpr, m.names);
  for (const s of sWrites) bar(ctx, sx, Y(s.t0), Y(s.t1), loopPalette.write, dpr);
  for (const s of cWrites) bar(ctx, cx, Y(s.t0), Y(s.t1), loopPalette.send, dpr);
  for (const s of cReads) bar(ctx, cx, Y(s.t0), Y(s.t1), loopPalette.read, dpr);

  // Requests: client write -> (half a round trip) -> receive buffer -> read.
  for (const wr of cWrites) {
    if (wr.t0 < from) continue;
    const arrive = wr.t1 + half;
    const read = firstFrom(sReadCalls, arrive);
    const n = wr.commands;
    const label = n !== null ? `${m.text.commands.replace('{n}', String(n))} · ${bytes(wr.bytes)}` : bytes(wr.bytes);
    arrow(ctx, cx, Y(wr.t1), sx, Y(arrive), loopPalette.send, dpr, label, m.rttNs > 0 ? m.text.halfRtt : '');
    if (read && read.t0 > arrive) waiting(ctx, sx, Y(arrive), Y(read.t0), dpr, m.text.waiting);
  }
  // Replies: server write -> half a round trip -> client read.
  for (const wr of sWrites) {
    if (wr.t0 < from) continue;
    const arrive = wr.t1 + half;
    const read = firstFrom(cReadCalls, arrive);
    arrow(ctx, sx, Y(wr.t1), cx, Y(arrive), loopPalette.write, dpr, bytes(wr.n), '');
    if (read && read.t0 > arrive) waiting(ctx, cx, Y(arrive), Y(read.t0), dpr, '');
  }
  // The latency of each batch, as the client measured it.
  for (const d of dones) {
    const start = d.t0 - d.x;
    if (start < from - 1) continue;
    const x = cx - 30 * dpr;
    ctx.strokeStyle = loopPalette.exec;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    ctx.moveTo(x + 6 * dpr, Y(start));
    ctx.lineTo(x, Y(start));
    ctx.lineTo(x, Y(d.t0));
    ctx.lineTo(x + 6 * dpr, Y(d.t0));
    ctx.stroke();
    ctx.save();
    ctx.translate(x - 6 * dpr, (Y(start) + Y(d.t0)) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillStyle = loopPalette.exec;
    ctx.font = canvasFont(12 * dpr, 600);
    ctx.textAlign = 'center';
    ctx.fillText(`${m.text.latency} ${formatDuration(d.x)}`, 0, 0);
    ctx.restore();
  }
  ctx.restore();
}

function drawAxis(ctx: CanvasRenderingContext2D, t0: number, t1: number, Y: (t: number) => number, left: number,
  w: number, dpr: number, top: number, bottom: number): void {
  const { at } = ticks(0, t1 - t0, Math.max(2, Math.floor((bottom - top) / (48 * dpr))));
  ctx.font = canvasMono(11.5 * dpr);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const d of at) {
    const y = Math.round(Y(t0 + d));
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(left, y, w - left, 1);
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(`+${formatDuration(d)}`, left - 8 * dpr, y);
  }
}

function drawLifeline(ctx: CanvasRenderingContext2D, x: number, head: number, bottom: number, label: string,
  dpr: number): void {
  ctx.strokeStyle = '#475569';
  ctx.lineWidth = 2 * dpr;
  ctx.setLineDash([6 * dpr, 4 * dpr]);
  ctx.beginPath();
  ctx.moveTo(x, head);
  ctx.lineTo(x, bottom);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.font = canvasFont(14 * dpr, 700);
  const tw = ctx.measureText(label).width + 20 * dpr;
  ctx.fillStyle = '#1a2741';
  ctx.fillRect(x - tw / 2, 4 * dpr, tw, head - 8 * dpr);
  ctx.strokeStyle = '#34466a';
  ctx.lineWidth = dpr;
  ctx.strokeRect(x - tw / 2 + 0.5, 4 * dpr + 0.5, tw - 1, head - 8 * dpr - 1);
  ctx.fillStyle = loopPalette.text;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(label, x, head / 2);
}

function bar(ctx: CanvasRenderingContext2D, x: number, y0: number, y1: number, color: string, dpr: number): void {
  ctx.fillStyle = color;
  ctx.fillRect(x - 5 * dpr, y0, 10 * dpr, Math.max(2 * dpr, y1 - y0));
}

/** Runs of commands (the trace's commands one after another, merged by
 *  the worker; n = how many), merged further where closer than a pixel,
 *  and labelled with the command and the count. */
function drawExecs(ctx: CanvasRenderingContext2D, x: number, execs: Span[], Y: (t: number) => number,
  dpr: number, names: Record<number, string>): void {
  let run: { y0: number; y1: number; n: number; cmd: number; most: number } | null = null;
  const flush = () => {
    if (!run) return;
    bar(ctx, x + 10 * dpr, run.y0, run.y1, loopPalette.exec, dpr);
    ctx.fillStyle = loopPalette.exec;
    ctx.font = canvasFont(11 * dpr, 600);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillText(`${names[run.cmd] ?? `#${run.cmd}`} ×${run.n}`, x + 18 * dpr, (run.y0 + run.y1) / 2);
  };
  for (const e of execs) {
    const y0 = Y(e.t0);
    const y1 = Y(e.t1);
    if (run && y0 - run.y1 < 12 * dpr) {
      run.y1 = Math.max(run.y1, y1);
      run.n += e.n;
      if (e.n > run.most) {
        run.most = e.n;
        run.cmd = e.x;
      }
    } else {
      flush();
      run = { y0, y1, n: e.n, cmd: e.x, most: e.n };
    }
  }
  flush();
}

function arrow(ctx: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number, color: string,
  dpr: number, label: string, note: string): void {
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
  const mx = (x0 + x1) / 2;
  const my = (y0 + y1) / 2;
  ctx.save();
  ctx.translate(mx, my);
  let rot = a;
  if (rot > Math.PI / 2) rot -= Math.PI;
  if (rot < -Math.PI / 2) rot += Math.PI;
  ctx.rotate(rot);
  ctx.font = canvasFont(12 * dpr, 600);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillStyle = loopPalette.text;
  ctx.fillText(label, 0, -4 * dpr);
  if (note) {
    ctx.textBaseline = 'top';
    ctx.fillStyle = loopPalette.textDim;
    ctx.fillText(note, 0, 4 * dpr);
  }
  ctx.restore();
}

/** A dashed stretch beside a lifeline: bytes that have arrived and wait
 *  in the receive buffer for the host's loop to read them. */
function waiting(ctx: CanvasRenderingContext2D, x: number, y0: number, y1: number, dpr: number, label: string): void {
  if (y1 - y0 < 3 * dpr) return;
  ctx.strokeStyle = loopPalette.textDim;
  ctx.lineWidth = 2 * dpr;
  ctx.setLineDash([3 * dpr, 3 * dpr]);
  ctx.beginPath();
  ctx.moveTo(x + 12 * dpr, y0);
  ctx.lineTo(x + 12 * dpr, y1);
  ctx.stroke();
  ctx.setLineDash([]);
  if (label && y1 - y0 > 14 * dpr) {
    ctx.fillStyle = loopPalette.textDim;
    ctx.font = canvasFont(11 * dpr);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillText(label, x + 18 * dpr, (y0 + y1) / 2, 80 * dpr);
  }
}
