// Seed 004's lab, eval-vs-zcard, run live from the event-loop pane's labs
// panel: its three parts as they go, the engine's figures in a table, and
// the timeline on the EVAL's frozen iteration. Screenshots go to
// test-results/shots/.
import AxeBuilder from '@axe-core/playwright';
import { test, type Page } from '@playwright/test';
import { LoopPane } from './pages/loop';
import { SandboxPage, expect } from './pages/sandbox';
import { SCREENS, phone } from './pages/screen';

const LAB = 'lab.eval-vs-zcard';

async function shots(app: SandboxPage, name: string): Promise<void> {
  await app.page.screenshot({ path: `test-results/shots/${name}.png` });
  await app.page.locator('.loop-run').screenshot({ path: `test-results/shots/${name}-labs.png` });
}

/** Starts the lab and waits for its end; returns the page's figures cell
 *  reader. */
async function runLab(app: SandboxPage): Promise<(row: string, run: 'zcard' | 'eval') => Promise<number>> {
  await app.byId(`${LAB}.live`).click();
  const progress = app.byId(`${LAB}.progress`);
  await expect(progress).toHaveAttribute('data-state', 'running');
  await expect(progress).toHaveAttribute('data-state', 'done', { timeout: 180_000 });
  await expect(app.byId(`${LAB}.table`)).toBeVisible();
  return async (row, run) => Number(await app.byId(`lab.eval.${row}.${run}`).getAttribute('data-value'));
}

async function settleViews(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await window.glasskv.idle();
    await window.glasskv.viewsIdle();
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    await window.glasskv.viewsIdle();
  });
}

test.describe('the eval-vs-zcard lab', () => {
  test('runs live from the labs panel, part by part, then shows the engine\'s figures and the frozen iteration', async ({ page }) => {
    await page.setViewportSize(SCREENS.laptop);
    const app = new SandboxPage(page);
    await app.open({ seed: 1, pane: 'loop' });
    const loop = new LoopPane(app);
    await app.byId(`${LAB}.live`).click();
    const progress = app.byId(`${LAB}.progress`);
    // The parts as they go: the keys loading, then the ZCARD run counting
    // its replies; the page stays responsive meanwhile.
    await expect(progress).toHaveAttribute('data-part', 'zcard', { timeout: 60_000 });
    await expect(progress.locator('[data-part="load"]')).toHaveAttribute('data-state', 'done');
    await expect(progress.locator('[data-part="zcard"]')).toHaveAttribute('data-state', 'running');
    await app.console.run('PING');
    expect(await app.console.lastOutput()).toBe('PONG');
    await shots(app, 'evallab-running-1440x900-en');
    await expect(progress).toHaveAttribute('data-state', 'done', { timeout: 180_000 });

    const cell = async (row: string, run: 'zcard' | 'eval') =>
      Number(await app.byId(`lab.eval.${row}.${run}`).getAttribute('data-value'));
    // Seed 004's bytes, exactly, as the engine counted them.
    expect(await cell('bytesWritten', 'zcard')).toBe(29_888_890);
    expect(await cell('bytesRead', 'zcard')).toBe(4_000_000);
    expect(await cell('bytesWritten', 'eval')).toBe(14_889_033);
    expect(await cell('bytesRead', 'eval')).toBe(10);
    await expect(app.byId('lab.eval.bytesWritten.zcard')).toHaveText('29,888,890');
    await expect(app.byId('lab.eval.bytesRead.eval')).toHaveText('10');
    expect(await cell('commands', 'zcard')).toBe(1_000_000);
    expect(await cell('sum', 'eval')).toBe(1_000_000);
    // A round trip per key; the EVAL's 14.9 MB in socket-sized writes,
    // paced by the server's reads: about a thousand.
    expect(await cell('clientCalls', 'zcard')).toBe(1_000_000);
    expect(await cell('clientCalls', 'eval')).toBeLessThan(2000);
    // The freeze: seconds for the EVAL, a fraction of a millisecond for a
    // ZCARD; the monitor's worst wait is the freeze, give or take a PING.
    const freeze = await cell('freeze', 'eval');
    expect(freeze).toBeGreaterThan(1000);
    expect(await cell('freeze', 'zcard')).toBeLessThan(1);
    expect(Math.abs(await cell('monitor', 'eval') - freeze)).toBeLessThanOrEqual(10);
    expect(await cell('monitor', 'zcard')).toBeLessThan(1);

    // The timeline now shows the lab's world, on the frozen iteration.
    await expect(loop.timeline).toHaveAttribute('data-source', 'lab');
    await expect(app.byId('loop.labSource')).toBeVisible();
    await settleViews(page);
    const shown = await loop.shown();
    const it = await page.evaluate(() => {
      const json = window.glasskv.loop().liveLab!.result!.json;
      return (JSON.parse(json) as { runs: { server: { longest_iteration: { start_ns: number; end_ns: number } } }[] })
        .runs[2].server.longest_iteration;
    });
    expect(shown.t0).toBeLessThan(it.start_ns);
    expect(shown.t1).toBeGreaterThan(it.end_ns);
    expect((it.end_ns - it.start_ns) / 1e6).toBeCloseTo(freeze, 3);
    // The server's lane is busy across the freeze.
    const server = shown.mode === 'bins' ? shown.bins.find((b) => b.node === 0) : null;
    expect(server ?? shown.items.find((l) => l.node === 0)).toBeTruthy();
    // Nothing serious for axe-core in the panel, its table or the note.
    const axe = await new AxeBuilder({ page }).include('.loop-run').include('.loop-timeline')
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await shots(app, 'evallab-done-1440x900-en');
    await page.locator('.loop-timeline').screenshot({ path: 'test-results/shots/evallab-timeline-1440x900-en.png' });

    await app.byId('lang.ko').click();
    await expect(app.byId(LAB)).toContainText('EVAL 대 ZCARD');
    await expect(app.byId(`${LAB}.table`)).toContainText('클라이언트가 쓴 바이트');
    await settleViews(page);
    await shots(app, 'evallab-done-1440x900-ko');
    await page.locator('.loop-timeline').screenshot({ path: 'test-results/shots/evallab-timeline-1440x900-ko.png' });

    // Back to the sandbox's own timeline.
    await app.byId('loop.backToSandbox').click();
    await expect(loop.timeline).toHaveAttribute('data-source', 'sandbox');
    await app.byId('lab.eval.showFreeze').click();
    await expect(loop.timeline).toHaveAttribute('data-source', 'lab');
    expect(app.errors).toEqual([]);
  });

  test('stops when asked, and the row says so', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 1, pane: 'loop' });
    await app.byId(`${LAB}.live`).click();
    const progress = app.byId(`${LAB}.progress`);
    await expect(progress).toHaveAttribute('data-part', 'zcard', { timeout: 60_000 });
    await app.byId(`${LAB}.stop`).click();
    await expect(progress).toHaveAttribute('data-state', 'cancelled');
    await expect(progress.locator('[data-part="zcard"]')).toHaveAttribute('data-state', 'cancelled');
    await expect(app.byId(`${LAB}.table`)).toHaveCount(0);
    await expect(app.byId(`${LAB}.live`)).toBeEnabled();
    expect(app.errors).toEqual([]);
  });

  for (const locale of ['en-US', 'ko-KR']) {
    const lang = locale.slice(0, 2);
    test(`fits a phone with its figures (${lang})`, async ({ browser }) => {
      const app = await phone(browser, locale);
      await app.open({ seed: 1, pane: 'loop' });
      const cell = await runLab(app);
      expect(await cell('bytesWritten', 'eval')).toBe(14_889_033);
      await settleViews(app.page);
      await app.expectNoSideScroll();
      await app.byId(LAB).evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await shots(app, `evallab-done-390x844-${lang}`);
      await app.byId(`${LAB}.table`).evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await app.page.screenshot({ path: `test-results/shots/evallab-done-390x844-${lang}-table.png` });
      expect(app.errors).toEqual([]);
      await app.page.context().close();
    });
  }
});
