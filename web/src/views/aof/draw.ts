// Canvas drawing of the threads strip: a pure function of the view and
// the canvas size.
import type { AofView } from '../../../../wasm/aofprotocol';
import { THREAD_LANES, jobsOnLane } from './model';

const BG = '#0b1324';
const GRID = '#24324b';

export function drawThreads(ctx: CanvasRenderingContext2D, v: AofView, w: number, h: number): void {
  ctx.fillStyle = BG;
  ctx.fillRect(0, 0, w, h);
  const t0 = v.t0;
  const t1 = Math.max(v.now, t0 + 1);
  const laneH = h / THREAD_LANES.length;
  THREAD_LANES.forEach((_, lane) => {
    ctx.fillStyle = GRID;
    ctx.fillRect(0, (lane + 1) * laneH - 1, w, 1);
    ctx.fillStyle = lane === 0 ? '#38bdf8' : lane === 2 ? '#4ade80' : '#a78bfa';
    for (const j of jobsOnLane(v.jobs, lane)) {
      const x0 = ((j.t0 - t0) / (t1 - t0)) * w;
      const x1 = ((j.t1 - t0) / (t1 - t0)) * w;
      ctx.fillRect(x0, lane * laneH + 3, Math.max(1.5, x1 - x0), laneH - 7);
    }
  });
}
