// The charts of the event-loop and AOF panes as a class sees them: axes
// with values in units, a readout under the cursor, zoom by dragging, the
// latency axis spanning the samples shown, a sequence diagram whose labels
// do not overlap, at a laptop's, a projector's and a phone's size, in
// English and Korean and in presenter mode. Screenshots go to
// test-results/charts/.
import { test, type Locator, type Page } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';
import { LoopPane, iterationsOf } from './pages/loop';
import { AofPane } from './pages/aof';
import { SCREENS } from './pages/screen';

const SIZES = [['1440x900', SCREENS.laptop], ['1280x720', SCREENS.projector], ['390x844', SCREENS.phone]] as const;

interface Shown {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  xTicks: string[];
  yTicks: string[];
}

/** The ranges and tick labels a chart drew (UPlotChart's data attributes). */
async function shown(chart: Locator): Promise<Shown> {
  return chart.getByTestId(/\.plot$/).evaluate((el: HTMLElement) => {
    const d = el.dataset;
    return {
      xMin: Number(d.xMin), xMax: Number(d.xMax), yMin: Number(d.yMin), yMax: Number(d.yMax),
      xTicks: (d.xTicks ?? '').split('|').filter(Boolean), yTicks: (d.yTicks ?? '').split('|').filter(Boolean),
    };
  });
}

/** Drags across the middle of a chart's plot, from fraction a to b of its width. */
async function dragAcross(page: Page, chart: Locator, a: number, b: number): Promise<void> {
  const over = chart.locator('.u-over');
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * a, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((a + b) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * b, y, { steps: 4 });
  await page.mouse.up();
}

/** The AOF chart's flush ticks, read from its canvas: runs of adjacent
 *  pixel columns of the plot holding the flush colour in the band at its
 *  bottom, and pixels of that colour above the band. */
async function flushTicks(chart: Locator): Promise<{ ticks: number; above: number; plotPx: number }> {
  return chart.evaluate(async (el) => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
    const canvas = el.querySelector('canvas')!;
    const over = el.querySelector('.u-over')!.getBoundingClientRect();
    const c = canvas.getBoundingClientRect();
    const k = canvas.width / c.width;
    const x0 = Math.round((over.left - c.left) * k);
    const y0 = Math.round((over.top - c.top) * k);
    const w = Math.round(over.width * k);
    const h = Math.round(over.height * k);
    const band = Math.round(10 * k);
    const data = canvas.getContext('2d')!.getImageData(x0, y0, w, h).data;
    const cols = new Set<number>();
    let above = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 4;
        if (data[i] !== 0xf4 || data[i + 1] !== 0x72 || data[i + 2] !== 0xb6) continue;
        if (y < h - band) above++;
        else cols.add(Math.floor(x / k));
      }
    }
    const xs = [...cols].sort((a, b) => a - b);
    return { ticks: xs.filter((x, i) => i === 0 || x - xs[i - 1] > 1).length, above, plotPx: over.width };
  });
}

const UNIT_NS: Record<string, number> = { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 };

/** Time tick labels in ns, which must step evenly: a label rounded off
 *  ("3 ms" for 2.5 ms) breaks the steps. */
function expectEvenSteps(labels: string[]): void {
  const ns = labels.map((l) => {
    const [v, unit] = l.split(' ');
    return Number(v) * UNIT_NS[unit];
  });
  const steps = ns.slice(1).map((t, i) => t - ns[i]);
  for (const d of steps) expect(Math.abs(d - steps[0]), `${labels.join(', ')}`).toBeLessThan(steps[0] * 1e-6);
}

const TIME_TICK = /^-?\d+(\.\d+)? (ns|µs|ms|s)$/;
const LATENCY_TICK = /^\d+(\.\d+)? (ns|µs|ms|s)$/;

async function runBenchmark(app: SandboxPage, size: { width: number; height: number }, lang: 'en' | 'ko'): Promise<LoopPane> {
  await app.page.setViewportSize(size);
  await app.page.goto(`./?fresh&seed=9&lang=${lang}`);
  await app.waitReady();
  await app.showPane('loop');
  const loop = new LoopPane(app);
  // Eight clients: a request of the connection followed often arrives
  // while the server runs the others', and waits to be read.
  await loop.startWorkload('benchmark', { clients: 8, pipeline: 16, requests: 0 });
  await loop.play('0.01', 1500);
  await loop.settle();
  return loop;
}

test.describe('the event-loop charts', () => {
  for (const [size, viewport] of SIZES) {
    for (const lang of ['en', 'ko'] as const) {
      test(`after a benchmark at ${size} (${lang}) have axes in units, a readout, drag zoom, and a sequence diagram whose labels stay apart`, async ({ page }) => {
        const app = new SandboxPage(page);
        const loop = await runBenchmark(app, viewport, lang);
        const snap = await loop.snapshot();
        // The timeline opens on a window a newcomer can read: half a
        // millisecond, a handful of the server's iterations, not dozens;
        // on a phone's narrow canvas a shorter one, so that an iteration
        // still gets the width to show its phases.
        const win = await loop.shown();
        const iterations = iterationsOf(win.items.find((l) => l.node === 0), Infinity).length;
        if (viewport === SCREENS.phone) {
          expect(win.t1 - win.t0).toBeLessThan(2e5);
          expect(iterations).toBeGreaterThanOrEqual(1);
          expect(iterations).toBeLessThanOrEqual(4);
        } else {
          expect(win.t1 - win.t0).toBeCloseTo(5e5, 0);
          expect(iterations).toBeGreaterThanOrEqual(2);
          expect(iterations).toBeLessThanOrEqual(12);
        }
        await page.locator('.loop-timeline').screenshot({ path: `test-results/charts/loop-timeline-${size}-${lang}.png` });

        // Throughput: time along x, commands per second up the side, the
        // whole history.
        const tput = app.byId('loop.throughput');
        await tput.scrollIntoViewIfNeeded();
        await expect.poll(async () => (await shown(tput)).yTicks.length).toBeGreaterThan(1);
        const t = await shown(tput);
        expect(t.xTicks.length).toBeGreaterThan(1);
        for (const v of t.xTicks) expect(v).toMatch(TIME_TICK);
        expectEvenSteps(t.xTicks);
        expect(t.yTicks.some((v) => /^\d+(\.\d+)?[kM]$/.test(v))).toBe(true);
        expect(t.xMin).toBe(0);
        expect(t.xMax).toBeGreaterThanOrEqual(snap.now);

        // Latency over time: the axis starts at the first sample shown, not
        // at the start of the run, and ends at now.
        const lat = app.byId('loop.latency');
        await expect(lat).toHaveAttribute('data-series', '1');
        const first = Number(await lat.getAttribute('data-first'));
        expect(first).toBeGreaterThan(0);
        await expect.poll(async () => (await shown(lat)).xMin).toBe(first);
        const l = await shown(lat);
        expect(l.xMax).toBeGreaterThanOrEqual(snap.now);
        for (const v of l.xTicks) expect(v).toMatch(TIME_TICK);
        expectEvenSteps(l.xTicks);
        expect(l.yTicks.length).toBeGreaterThan(1);
        for (const v of l.yTicks) expect(v).toMatch(LATENCY_TICK);
        // A latency axis starts at 0 and says so.
        expect(l.yMin).toBe(0);
        expect(l.yTicks[0]).toMatch(/^0 (ns|µs|ms|s)$/);

        // The readout under the cursor: the time and the batch's latency.
        const over = lat.locator('.u-over');
        await over.hover({ position: { x: (await over.boundingBox())!.width * 0.6, y: 20 } });
        const values = lat.locator('.u-legend .u-value');
        await expect(values.nth(0)).toHaveText(TIME_TICK);
        await expect(values.nth(1)).toHaveText(/^\d+(\.\d+)? (µs|ms|s)$/);

        // Zoom: a drag selects a stretch, a double click shows all again.
        await dragAcross(page, lat, 0.3, 0.6);
        await expect(lat).toHaveAttribute('data-zoomed', 'yes');
        const z = await shown(lat);
        expect(z.xMin).toBeGreaterThan(l.xMin + (l.xMax - l.xMin) * 0.2);
        expect(z.xMax).toBeLessThan(l.xMax - (l.xMax - l.xMin) * 0.3);
        await page.screenshot({ path: `test-results/charts/loop-latency-zoomed-${size}-${lang}.png` });
        await over.dblclick();
        await expect(lat).toHaveAttribute('data-zoomed', 'no');
        await expect.poll(async () => (await shown(lat)).xMin).toBe(first);

        // The distribution: latency along a logarithmic axis, shares up the side.
        const hist = app.byId('loop.histogram');
        const hs = await shown(hist);
        for (const v of hs.xTicks) expect(v).toMatch(LATENCY_TICK);
        expect(hs.xTicks.length).toBeGreaterThan(1);
        expect(hs.yTicks.length).toBeGreaterThan(1);
        for (const v of hs.yTicks) expect(v).toMatch(/^\d+ %$/);
        await page.locator('.loop-clients').screenshot({ path: `test-results/charts/loop-charts-${size}-${lang}.png` });

        // The sequence diagram: every label whole, inside, apart.
        await app.byId('seq.conn').scrollIntoViewIfNeeded();
        const { labels, faults } = await loop.sequenceLabels();
        expect(labels.length).toBeGreaterThan(4);
        expect(faults).toEqual([]);
        const texts = labels.map((b) => b.text);
        expect(texts).toContain(lang === 'en' ? 'waiting to be read' : '읽히기를 기다림');
        expect(texts.some((x) => /^(latency |지연 )?\d+(\.\d+)? µs$/.test(x))).toBe(true);
        expect(texts.some((x) => /^(16 cmd|명령 16개) · \d+ B$/.test(x))).toBe(true);
        await page.locator('.loop-sequence').screenshot({ path: `test-results/charts/loop-sequence-${size}-${lang}.png` });
        expect(app.errors).toEqual([]);
      });
    }
  }

  test('in presenter mode the charts and their type grow with the page', async ({ page }) => {
    const app = new SandboxPage(page);
    const loop = await runBenchmark(app, SCREENS.projector, 'en');
    const plot = app.byId('loop.latency').locator('canvas');
    const legend = app.byId('loop.latency').locator('.u-legend');
    const fontPx = () => legend.evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
    const before = (await plot.boundingBox())!.height;
    const legendBefore = await fontPx();
    await app.byId('present.toggle').click();
    await expect(page.locator('html')).toHaveClass(/presenter/);
    await expect.poll(async () => (await plot.boundingBox())!.height).toBeGreaterThan(before * 1.1);
    expect(await fontPx()).toBeGreaterThan(legendBefore * 1.1);
    const lat = app.byId('loop.latency');
    await lat.scrollIntoViewIfNeeded();
    expect((await shown(lat)).yTicks.length).toBeGreaterThan(1);
    await page.locator('.loop-clients').screenshot({ path: 'test-results/charts/loop-charts-presenter-1280x720.png' });
    await app.byId('seq.conn').scrollIntoViewIfNeeded();
    expect((await loop.sequenceLabels()).faults).toEqual([]);
    await page.locator('.loop-sequence').screenshot({ path: 'test-results/charts/loop-sequence-presenter-1280x720.png' });
    expect(app.errors).toEqual([]);
  });
});

test.describe('the AOF offsets chart', () => {
  for (const [size, viewport] of SIZES) {
    test(`at ${size} has axes of bytes and time, and its offsets axis follows the window zoomed to`, async ({ page }) => {
      const app = new SandboxPage(page);
      await page.setViewportSize(viewport);
      const aof = new AofPane(app);
      await app.open({ seed: 4, pane: 'aof' });
      await aof.enable();
      await aof.waitOn();
      for (let i = 0; i < 6; i++) {
        await app.console.run(`SET key:${i} ${'v'.repeat(40 * (i + 1))}`);
        await aof.wait(3e8);
      }
      const chart = app.byId('aof.chart');
      await chart.scrollIntoViewIfNeeded();
      await expect.poll(async () => (await shown(chart)).yTicks.length).toBeGreaterThan(1);
      const all = await shown(chart);
      for (const v of all.xTicks) expect(v).toMatch(TIME_TICK);
      expectEvenSteps(all.xTicks);
      for (const v of all.yTicks) expect(v).toMatch(/^\d+(\.\d+)? (B|KiB|MiB)$/);
      await page.screenshot({ path: `test-results/charts/aof-${size}.png` });
      await chart.screenshot({ path: `test-results/charts/aof-chart-${size}.png` });

      // Zoomed onto the middle of the run, the offsets axis spans the
      // offsets of then, not of the whole run.
      await dragAcross(page, chart, 0.45, 0.75);
      await expect(app.byId('aof.chart.window')).toHaveAttribute('data-zoomed', 'yes');
      const z = await shown(chart);
      expect(z.xMin).toBeGreaterThan(all.xMin);
      expect(z.xMax).toBeLessThan(all.xMax);
      // (How long the AOF takes to come on varies, so the window may or
      // may not begin before the first write: its top and its span tell.)
      expect(z.yMax).toBeLessThan(all.yMax);
      expect(z.yMax - z.yMin).toBeLessThan((all.yMax - all.yMin) * 0.75);
      expect(z.yTicks.length).toBeGreaterThan(1);
      await chart.screenshot({ path: `test-results/charts/aof-chart-zoomed-${size}.png` });
      const values = chart.locator('.u-legend .u-value');
      const over = chart.locator('.u-over');
      await over.hover({ position: { x: (await over.boundingBox())!.width * 0.5, y: 10 } });
      await expect(values.nth(0)).toHaveText(TIME_TICK);
      await expect(values.nth(1)).toHaveText(/^\d+(\.\d+)? (B|KiB)$/);
      await over.dblclick();
      await expect(app.byId('aof.chart.window')).toHaveAttribute('data-zoomed', 'no');
      expect(app.errors).toEqual([]);
    });
  }

  test('after seconds of writes it opens on the whole run, fsyncs as steps, and marks the flushes as thin ticks on the time axis', async ({ page }) => {
    const app = new SandboxPage(page);
    await page.setViewportSize(SCREENS.laptop);
    const aof = new AofPane(app);
    await app.open({ seed: 8, pane: 'aof' });
    await aof.enable();
    await aof.waitOn();
    const on = (await app.state((s) => s.snapshot!.now));
    await page.evaluate(() => window.glasskv.act({
      kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 1_000_000,
    }));
    for (let i = 0; i < 4; i++) await aof.wait(1e9);
    const now = await app.state((s) => s.snapshot!.now);
    const chart = app.byId('aof.chart');
    await chart.scrollIntoViewIfNeeded();
    await expect(app.byId('aof.chart.window')).toHaveAttribute('data-zoomed', 'no');
    // The whole run since the AOF came on, not its last milliseconds.
    await expect.poll(async () => (await shown(chart)).xMax).toBeGreaterThanOrEqual(now);
    const all = await shown(chart);
    expect(all.xMin).toBeLessThanOrEqual(on);
    // The bio thread's fsyncs, about one a second, each a step of durable.
    expect(Number(await chart.getAttribute('data-fsyncs'))).toBeGreaterThanOrEqual(3);
    // Flushes are ticks along the bottom of the plot: none higher up, and
    // at most one per 4 px however many thousand flushes the run made.
    const ticks = await flushTicks(chart);
    expect(ticks.ticks).toBeGreaterThan(20);
    expect(ticks.above).toBe(0);
    expect(ticks.ticks).toBeLessThanOrEqual(ticks.plotPx / 4 + 1);
    await chart.screenshot({ path: 'test-results/charts/aof-chart-workload.png' });
    // Zoomed onto the last tenth of a second: still ticks, not a wall.
    await dragAcross(page, chart, 0.98, 1);
    await expect(app.byId('aof.chart.window')).toHaveAttribute('data-zoomed', 'yes');
    const zoomed = await flushTicks(chart);
    expect(zoomed.ticks).toBeGreaterThan(20);
    expect(zoomed.above).toBe(0);
    expect(zoomed.ticks).toBeLessThanOrEqual(zoomed.plotPx / 4 + 1);
    await chart.screenshot({ path: 'test-results/charts/aof-chart-workload-zoomed.png' });
    expect(app.errors).toEqual([]);
  });

  test('in Korean and presenter mode its axes and legend read in the page\'s type', async ({ page }) => {
    const app = new SandboxPage(page);
    await page.setViewportSize(SCREENS.projector);
    const aof = new AofPane(app);
    await app.open({ seed: 4, pane: 'aof' });
    await app.byId('lang.ko').click();
    await aof.enable();
    await aof.waitOn();
    for (let i = 0; i < 4; i++) {
      await app.console.run(`SET k${i} ${i}`);
      await aof.wait(3e8);
    }
    await app.byId('present.toggle').click();
    await expect(page.locator('html')).toHaveClass(/presenter/);
    const chart = app.byId('aof.chart');
    await chart.scrollIntoViewIfNeeded();
    await expect(chart.locator('.u-legend')).toContainText('영속됨');
    expect((await shown(chart)).yTicks.length).toBeGreaterThan(1);
    await chart.screenshot({ path: 'test-results/charts/aof-chart-presenter-ko.png' });
    expect(app.errors).toEqual([]);
  });
});
