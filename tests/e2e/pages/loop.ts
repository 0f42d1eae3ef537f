// Page object of the event-loop pane: workloads, labs, the timeline, the
// sequence diagram, the charts, and the time controls that go with them.
import { expect, type Locator } from '@playwright/test';
import type { LaneItems, Snapshot, TimelineResult } from '../../../wasm/protocol';
import type { LabelBox } from '../../../web/src/render/sequence';
import { loopPalette } from '../../../web/src/render/timeline';
import type { SandboxPage } from './sandbox';

const ITER = 0;

export class LoopPane {
  constructor(private readonly app: SandboxPage) {}

  get timeline(): Locator {
    return this.app.byId('loop.timeline');
  }

  /** Starts a client program from the Run panel's form. */
  async startWorkload(preset: 'benchmark' | 'redis-py' | 'lettuce' | 'monitor',
    fields: Partial<Record<'clients' | 'requests' | 'pipeline', number>> = {}): Promise<void> {
    await this.app.byId(`run.tab.${preset}`).click();
    for (const [k, v] of Object.entries(fields)) await this.app.byId(`wl.${k}`).fill(String(v));
    await this.app.byId('wl.start').click();
    await this.app.idle();
  }

  async play(speed: string, ms: number): Promise<void> {
    await this.app.byId('time.speed').selectOption(speed);
    await this.app.byId('time.play').click();
    await this.app.page.waitForTimeout(ms);
    await this.app.byId('time.play').click();
    await this.app.idle();
    await this.settle();
  }

  /** Waits until the views have asked for what the last snapshot shows. */
  async settle(): Promise<void> {
    await this.app.page.evaluate(async () => {
      await window.glasskv.idle();
      await window.glasskv.viewsIdle();
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      await window.glasskv.viewsIdle();
    });
  }

  async snapshot(): Promise<Snapshot> {
    return this.app.page.evaluate(() => {
      const s = window.glasskv.state().snapshot!;
      return { ...s, dict: null } as unknown as Snapshot;
    });
  }

  /** The sequence diagram's labels as drawn (their boxes in CSS pixels,
   *  from the canvas's data-labels), with what is wrong with them: pairs
   *  whose boxes overlap or touch (two labels end to end read as one),
   *  and labels that leave the canvas. */
  async sequenceLabels(): Promise<{ labels: LabelBox[]; faults: string[] }> {
    const { labels, w, h } = await this.app.byId('loop.sequence').evaluate((el: HTMLElement) => ({
      labels: JSON.parse(el.dataset.labels ?? '[]') as LabelBox[], w: el.clientWidth, h: el.clientHeight,
    }));
    const faults: string[] = [];
    for (const a of labels) {
      if (a.x < -0.5 || a.y < -0.5 || a.x + a.w > w + 0.5 || a.y + a.h > h + 0.5) faults.push(`"${a.text}" leaves the canvas`);
    }
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i];
        const b = labels[j];
        const ow = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
        const oh = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
        if (ow > -2 && oh > -2) faults.push(`"${a.text}" overlaps or touches "${b.text}"`);
      }
    }
    return { labels, faults };
  }

  /** The window of the timeline the page holds (what it draws). */
  async shown(): Promise<TimelineResult> {
    return this.app.page.evaluate(() => window.glasskv.loop().timeline!);
  }

  /** Where the timeline's now line is (canvas pixels), and how many
   *  pixels right of it, below the time axis, are painted in a colour of
   *  the lanes' drawing (a phase, an iteration, a tick, the asleep line):
   *  read from the canvas itself. */
  async drawnPastNow(): Promise<{ nowX: number; width: number; pixels: number }> {
    const colors = [
      loopPalette.poll, loopPalette.read, loopPalette.exec, loopPalette.cron, loopPalette.beforeSleep,
      loopPalette.write, loopPalette.iteration, loopPalette.iterationEdge, loopPalette.sleep, loopPalette.send,
      loopPalette.done,
    ];
    await this.settle();
    return this.timeline.evaluate(async (el: HTMLCanvasElement, hex) => {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
      const rgb = new Set(hex.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)).join(',')));
      const r = window.glasskv.loop().timeline!;
      const now = window.glasskv.state().snapshot!.now;
      const scale = (window.devicePixelRatio || 1) * parseFloat(getComputedStyle(document.documentElement).fontSize) / 17;
      const gutter = 168 * scale;
      const nowX = gutter + ((now - r.t0) / (r.t1 - r.t0)) * (el.width - gutter);
      const from = Math.ceil(nowX + 2 * scale) + 1;
      const top = Math.ceil(30 * scale);
      if (from >= el.width) return { nowX, width: el.width, pixels: 0 };
      const data = el.getContext('2d')!.getImageData(from, top, el.width - from, el.height - top).data;
      let pixels = 0;
      for (let i = 0; i < data.length; i += 4) if (rgb.has(`${data[i]},${data[i + 1]},${data[i + 2]}`)) pixels++;
      return { nowX, width: el.width, pixels };
    }, colors);
  }

  /** The numbers of the server iterations the timeline holds that began
   *  by time `until` (a host's iteration may end past the world's clock). */
  async serverIterations(t0: number, t1: number, until: number): Promise<number[]> {
    const r = await this.app.page.evaluate(([a, b]) => window.glasskv.timeline(a, b, 8192, [0]), [t0, t1]);
    if (r.mode !== 'items') throw new Error('expected every item');
    return iterationsOf(r.items[0], until);
  }
}

export function iterationsOf(l: LaneItems | undefined, until: number): number[] {
  const out: number[] = [];
  if (!l) return out;
  for (let i = 0; i < l.count; i++) if (l.kind[i] === ITER && l.t0[i] <= until) out.push(l.x[i]);
  return out;
}

export { expect };
