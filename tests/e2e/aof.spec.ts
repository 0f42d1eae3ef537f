import { test } from '@playwright/test';
import { AofPane } from './pages/aof';
import { SandboxPage, expect } from './pages/sandbox';

test.describe('the AOF panel', () => {
  test('under appendfsync always a power loss keeps every acknowledged write; under no it loses them', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 3 });
    await aof.show();
    await aof.enable();
    await app.console.run('SET warmup 1');
    await aof.policy('always');
    await app.console.run('SET user:1 alice\nSET user:2 bob\nINCR visits\nINCR visits');
    await expect(app.byId('aof.cmd.durable').first()).toBeVisible();
    await expect(app.byId('aof.thread.bio_aof_fsync')).toBeVisible();
    await app.screenshot('aof-always-before-crash');

    await aof.crash('power');
    // While it is down the controls show what the restart will use.
    await expect(app.byId('aof.appendonly')).toBeChecked();
    await expect(app.byId('aof.fsync')).toHaveValue('always');
    await expect(app.byId('aof.downConfig')).toBeVisible();
    await app.screenshot('labs/aof-controls-while-down');
    await app.console.run('GET user:1');
    expect(await app.console.lastOutput()).toBe('Could not connect to Redis at 127.0.0.1:6379: Connection refused');
    await aof.restart();
    await expect(aof.summary).toContainText('4 of the 4 keys followed');
    await expect(aof.rows('lost')).toHaveCount(0);
    await expect(app.byId('aof.report.explain')).toContainText('appendfsync always');
    await app.screenshot('aof-always-report');
    expect(await app.console.reply('GET user:1')).toBe('"alice"');

    await aof.policy('no');
    await app.console.run('SET order:1 paid\nSET order:2 shipped');
    await expect(app.byId('aof.cmd.written').first()).toBeVisible();
    await app.screenshot('aof-no-before-crash');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-no-before-crash.png' });
    await aof.crash('power');
    await aof.restart();
    await expect(aof.rows('lost')).toHaveCount(2);
    await expect(aof.summary).toContainText('2 lost it: they are gone from the restarted server');
    await expect(app.byId('aof.report.explain')).toContainText('appendfsync no');
    // Every write ran was acknowledged: the report does not count none.
    await expect(app.byId('aof.report.writes')).not.toContainText('reply never reached');
    // The crash and the restart are notes in the console, labelled.
    const notes = app.console.entries.filter({ has: app.byId('console.badge') });
    const lastNotes = () => notes.evaluateAll((es) => es.slice(-2).map((e) =>
      `${e.querySelector('.entry-badge')!.textContent}: ${e.querySelector('.entry-cmd')!.textContent}`));
    expect(await lastNotes()).toEqual(['Machine: power loss', 'Machine: redis-server restarted']);
    // Read from the back of a room: the table is no smaller than the text.
    const size = (sel: string) => page.locator(sel).first().evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
    const body = await size('body');
    expect(await size('.aof-report-table td')).toBeGreaterThanOrEqual(body);
    expect(await size('.aof-report h3')).toBeGreaterThan(await size('.aof-report p'));
    await app.byId('lang.ko').click();
    await expect(notes.last().getByTestId('console.badge')).toHaveText('머신');
    expect(await lastNotes()).toEqual(['머신: 전원 차단', '머신: redis-server 다시 시작됨']);
    await app.byId('lang.en').click();
    await app.screenshot('aof-no-report');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-no-report.png' });
    expect(app.errors).toEqual([]);
  });
});

test.describe('the AOF panel: disk, crash points, labs, zoom', () => {
  test('a full disk gets MISCONF in the console while GET works; freeing space brings writes back', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 5, pane: 'aof' });
    await aof.enable();
    await aof.waitOn();
    await app.console.run('SET a 1');
    await app.byId('aof.diskFull').click();
    await app.idle();
    await app.console.run('SET b 2');
    await aof.wait(2e9);
    await app.console.run('SET c 3');
    expect(await app.console.lastOutput()).toMatch(/^\(error\) MISCONF Errors writing to the AOF file: No space left on device/);
    await expect(app.byId('aof.misconf')).toBeVisible();
    expect(await app.console.reply('GET a')).toBe('"1"');
    // The checkbox follows the engine's disk: click, then wait for the view.
    await app.byId('aof.readOnly').click();
    await expect(app.byId('aof.readOnly')).toBeChecked();
    await app.screenshot('aof-disk-full-misconf');
    await app.byId('aof.readOnly').click();
    await expect(app.byId('aof.readOnly')).not.toBeChecked();
    await app.byId('aof.diskFreeUp').click();
    await aof.wait(2e9);
    expect(await app.console.reply('SET c 3')).toBe('OK');
    await expect(app.byId('aof.misconf')).toHaveCount(0);
    const kinds = await app.state((s) => s.log.entries.map((e) => e.action.kind));
    expect(kinds.filter((k) => k === 'diskFree')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'diskReadOnly')).toHaveLength(2);
    expect(app.errors).toEqual([]);
  });

  test('a crash armed right after the next write of aof_buf: no reply, and a power loss loses the write', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 6, pane: 'aof' });
    await aof.enable();
    await aof.waitOn();
    await aof.policy('always');
    await app.console.run('SET kept 1');
    await aof.crashAt('afterWrite', 'power');
    await app.screenshot('aof-crash-at-armed');
    await app.console.run('SET lost 1');
    await expect(app.byId('aof.down')).toBeVisible();
    await aof.restart();
    await expect(app.byId('aof.report.point')).toContainText('right after the next write(2) of aof_buf');
    // The console's note names the point as the picker does.
    const armed = app.console.entries.filter({ hasText: 'armed' });
    await expect(armed).toContainText('power loss armed: right after the next write(2) of aof_buf');
    await expect(aof.rows('kept')).toHaveCount(1);
    expect(await app.console.reply('EXISTS lost')).toBe('(integer) 0');
    expect(await app.state((s) => s.log.entries.some((e) => e.action.kind === 'crashAt'))).toBe(true);
    await aof.panel.screenshot({ path: 'test-results/aof-panel-crash-at-report.png' });
    expect(app.errors).toEqual([]);
  });

  test('on a phone, a key rewritten since its last fsync comes back older: the report counts it among the lost and its table scrolls in its box', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, reducedMotion: 'reduce' });
    const app = new SandboxPage(await context.newPage());
    const aof = new AofPane(app);
    await app.open({ seed: 3, pane: 'aof' });
    await aof.enable();
    await aof.waitOn();
    await aof.policy('always');
    await app.console.run('SET user:1 alice');
    await aof.policy('no');
    await app.console.run('SET order:1 paid\nSET order:2 shipped\nSET user:1 dave');
    await aof.crash('power');
    await aof.restart();
    await expect(aof.rows('lost')).toHaveCount(2);
    await expect(aof.rows('older')).toHaveCount(1);
    await expect(aof.summary).toContainText('3 lost it: 2 are gone, 1 holds an older value');
    await expect(app.byId('aof.report.olderNote')).toContainText('1 key holds an older value');
    await expect(aof.rows('older')).toContainText('lost (older value)');
    for (const lang of ['en', 'ko'] as const) {
      await app.byId(`lang.${lang}`).click();
      if (lang === 'ko') await expect(aof.summary).toContainText('3개는 잃었습니다: 2개는 사라졌고, 1개는 이전 값을 가지고 있습니다');
      await app.expectNoSideScroll();
      // A row is one line: no key, value or outcome breaks inside.
      const rows = app.byId('aof.report.scroll').locator('tbody tr');
      for (const h of await rows.evaluateAll((trs) => trs.map((tr) =>
        tr.getBoundingClientRect().height / parseFloat(getComputedStyle(tr.querySelector('td')!).lineHeight)))) {
        expect(h).toBeLessThan(1.9);
      }
      // Scrolled to its end, the table shows the outcome column whole.
      await app.byId('aof.report.scroll').evaluate((e) => { e.scrollLeft = e.scrollWidth; });
      const outcome = (await aof.rows('older').locator('td').last().boundingBox())!;
      expect(outcome.x + outcome.width).toBeLessThanOrEqual(390);
      await app.byId('aof.report.scroll').scrollIntoViewIfNeeded();
      await app.screenshot(`aof-phone-older-report-${lang}`);
    }
    // The controls fit too.
    await app.byId('aof.crashAt.point').scrollIntoViewIfNeeded();
    await app.expectNoSideScroll();
    expect(app.errors).toEqual([]);
    await context.close();
  });

  test('a SET workload under everysec on the slow-fsync disk loses acknowledged writes on power loss', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 8, pane: 'aof' });
    await aof.disk('slow-fsync');
    await aof.enable();
    await aof.waitOn();
    await page.evaluate(() => window.glasskv.act({
      kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 1_000_000,
    }));
    // The end of the first rewrite fsyncs in the main thread for seconds on
    // this disk (the base file, the manifest): the clients wait that long.
    await aof.wait(4e9);
    await aof.wait(4e9);
    await expect(app.byId('aof.acked')).toContainText(/[1-9][\d,]* writes acknowledged/);
    await aof.crash('power');
    await aof.restart();
    await expect(aof.rows('lost').first()).toBeVisible();
    await expect(app.byId('aof.report.writes')).toContainText('writes were acknowledged');
    await app.screenshot('aof-workload-power-loss-report');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-workload-report.png' });
    expect(app.errors).toEqual([]);
  });

  test('kill -9 under everysec keeps every acknowledged write, unless a slow fsync postponed the write: then the report says why one is lost', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 9, pane: 'aof' });
    await aof.enable();
    await aof.waitOn();
    await aof.policy('everysec');
    await app.console.run('SET job:0 queued');
    await aof.crash('process');
    await aof.restart();
    await expect(aof.rows('lost')).toHaveCount(0);
    await expect(app.byId('aof.report.explain')).toContainText('Normally it holds no acknowledged write');

    // The lesson's step (tutorials/en/aof-fsync.md, "everysec on a slow
    // disk"): the fsync of job:1 is still running when job:2 is flushed.
    await aof.disk('slow-fsync');
    await aof.wait(1.1e9);
    await app.console.run('SET job:1 queued');
    await app.console.run('SET job:2 queued');
    await aof.crash('process');
    await aof.restart();
    await expect(aof.rows('lost')).toHaveCount(1);
    await expect(aof.rows('lost')).toContainText('job:2');
    const explain = app.byId('aof.report.explain');
    await expect(explain).toContainText('at the crash aof_buf held acknowledged writes: they are lost');
    await expect(explain).toContainText('postpones the write(2) of aof_buf');
    // job:0 was carried over from the first restart, with no write since:
    // the words count it among the keys followed and say why its writes are 0.
    const summary = app.byId('aof.report.summary');
    await expect(summary).toContainText('2 of the 3 keys followed kept their last acknowledged value, 1 lost it');
    await expect(summary).toContainText('1 of them was carried over from the restart before this crash');
    await expect(app.byId('aof.report.writes')).toContainText('2 writes were acknowledged between the last start and the crash');
    await expect(aof.rows('kept').filter({ hasText: 'job:0' }).locator('td').nth(1)).toHaveText('0');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-kill9-postponed-report.png' });
    await page.getByTestId('lang.ko').click();
    await expect(explain).toContainText('write(2)를 미루고');
    await expect(summary).toContainText('추적한 키 3개 중 2개는');
    await expect(summary).toContainText('그중 1개는 이번 크래시 전의 재시작에서 넘어온 키');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-kill9-postponed-report-ko.png' });
    expect(app.errors).toEqual([]);
  });

  test('the labs run headless with their figures explained, and the live scene loses a burst no one was told about', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 9, pane: 'aof' });
    const table = await aof.runLab('disk-full');
    await expect(table).toContainText('GET still works');
    await expect(app.byId('aof.lab.disk-full.explain')).toContainText('MISCONF');
    await aof.runLab('aof-not-a-wal');
    await expect(app.byId('aof.lab.aof-not-a-wal.explain')).toContainText('not a write-ahead log');
    await app.byId('aof.lab.aof-not-a-wal.table').scrollIntoViewIfNeeded();
    await app.screenshot('aof-lab-not-a-wal');
    // The live scene says why it cannot start yet.
    await expect(app.byId('aof.lab.live')).toBeDisabled();
    await expect(app.byId('aof.lab.live.why')).toHaveText(/Turn appendonly on first/);
    await aof.enable();
    await expect(app.byId('aof.lab.live.why')).toHaveText(/Waiting for the first rewrite of the AOF/);
    await app.screenshot('labs/aof-live-scene-waiting');
    await aof.waitOn();
    await expect(app.byId('aof.lab.live.why')).toHaveCount(0);
    await app.byId('aof.lab.live').click();
    // The scene is two logged actions (arm, then the burst's client).
    await expect.poll(() => app.state((st) => st.log.entries.map((e) => e.action.kind).join(' ')))
      .toMatch(/crashAt workload$/);
    await app.idle();
    await aof.wait(1e9);
    await expect(app.byId('aof.down')).toBeVisible();
    await aof.restart();
    await expect(app.byId('aof.report.point')).toContainText('ran 400 commands');
    await expect(aof.summary).toContainText('(0 keys after restart)');
    await app.screenshot('aof-live-scene-report');
    // The same panel in Korean.
    await app.byId('lang.ko').click();
    await expect(app.byId('aof.report.point')).toContainText('명령 400개');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-ko.png' });
    await app.byId('lang.en').click();
    expect(app.errors).toEqual([]);
  });

  test('the offsets chart zooms with buttons, the wheel and the keyboard, and resets', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 4, pane: 'aof' });
    await aof.enable();
    await aof.waitOn();
    for (let i = 0; i < 5; i++) {
      await app.console.run(`SET k${i} ${i}`);
      await aof.wait(3e8);
    }
    const win = app.byId('aof.chart.window');
    await expect(win).toHaveAttribute('data-zoomed', 'no');
    await app.byId('aof.chart.zoomIn').click();
    await expect(win).toHaveAttribute('data-zoomed', 'yes');
    await app.byId('aof.chart.reset').click();
    await expect(win).toHaveAttribute('data-zoomed', 'no');
    const box = app.byId('aof.chart.box');
    await box.hover();
    await page.mouse.wheel(0, -300);
    await expect(win).toHaveAttribute('data-zoomed', 'yes');
    await box.focus();
    await expect(box).toHaveRole('application');
    const steps = () => app.state((s) => s.log.entries.filter((e) => e.action.kind === 'step').length);
    const before = await steps();
    await page.keyboard.press('+');
    const zoomedText = await win.textContent();
    // Zoomed, ← pans the window and stays with the chart.
    await page.keyboard.press('ArrowLeft');
    await expect(win).not.toHaveText(zoomedText!);
    await app.idle();
    expect(await steps()).toBe(before);
    await app.screenshot('aof-chart-zoomed');
    await page.keyboard.press('0');
    await expect(win).toHaveAttribute('data-zoomed', 'no');
    // Unzoomed there is nothing to pan: → reaches the page and steps the world.
    await page.keyboard.press('ArrowRight');
    await expect.poll(steps).toBe(before + 1);
    expect(app.errors).toEqual([]);
  });
});
