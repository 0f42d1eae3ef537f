import { test } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';
import { SlabsPane } from './pages/slabs';

test.describe('the sandbox page', () => {
  test('runs typed commands, then a full SCAN over 10,000 keys returns every original key while keys are added', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 11 });

    expect(await app.console.reply('SET greeting hello')).toBe('OK');
    expect(await app.console.reply('GET greeting')).toBe('"hello"');
    expect(await app.console.reply('INCR visits')).toBe('(integer) 1');
    await app.console.run('FOO bar');
    await expect(app.console.entries.last()).toHaveAttribute('data-status', 'error');
    expect(await app.console.lastOutput()).toBe("(error) ERR unknown command 'FOO', with args beginning with: 'bar' ");

    const before = await app.console.entries.count();
    await app.console.run('SET a 1\nINCR a\nGET a');
    await expect(app.console.entries).toHaveCount(before + 3);
    const outputs = await app.console.entries.locator('[data-testid="console.output"]').allTextContents();
    expect(outputs.slice(-3)).toEqual(['OK', '(integer) 2', '"2"']);

    await app.console.run('SELECT 1');
    await expect(app.console.prompt).toHaveText('127.0.0.1:6379[1]>');
    await app.console.run('SELECT 0');
    await expect(app.console.prompt).toHaveText('127.0.0.1:6379>');

    await app.table.add(10_000);
    expect(await app.table.keys()).toBe(10_003);
    // Written by MSET, as a client writes them: the table doubled as it
    // filled, and the last doubling (8,192 to 16,384 buckets) is under way.
    await expect(page.getByTestId('ht.status')).toHaveAttribute('data-rehashing', 'yes');
    await expect(app.table.table(0)).toHaveAttribute('data-size', '8192');
    await expect(app.table.table(1)).toHaveAttribute('data-size', '16384');
    await app.screenshot('sandbox-10000-keys');

    await app.scan.start(100);
    await expect(app.scan.cursor).toHaveText('0');
    await app.scan.step();
    await app.scan.step();
    await app.table.add(10_000);
    await expect(page.getByTestId('ht.status')).toHaveAttribute('data-rehashing', 'yes');
    await expect(app.table.table(1)).toHaveAttribute('data-size', '32768');
    await app.scan.step();
    await app.table.add(1000);
    await app.scan.step();
    await app.screenshot('sandbox-scan-while-rehashing');
    await app.scan.finish();

    await expect(app.scan.checker).toHaveAttribute('data-verdict', 'pass');
    await expect(app.scan.checker).toHaveAttribute('data-throughout', '10003');
    await expect(app.scan.checker).toHaveAttribute('data-returned', '10003');
    await expect(app.scan.checker).toHaveAttribute('data-missing', '0');
    await expect(page.getByTestId('scan.verdict')).toContainText('10,003');
    await app.screenshot('sandbox-scan-complete');
    expect(app.errors).toEqual([]);
  });

  test('Run to the end walks many calls per frame, shows its progress and stops on request', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 5 });
    await app.table.add(100_000);
    await app.table.add(100_000);
    await app.scan.start(1);
    const logged = await app.state((s) => s.log.entries.length);
    const t0 = Date.now();
    await app.byId('scan.finish').click();
    await expect(app.byId('scan.progress')).toBeVisible();
    await expect.poll(async () => app.state((s) => s.snapshot!.scan!.calls)).toBeGreaterThan(1000);
    await app.screenshot('labs/scan-run-to-the-end-progress');
    await app.byId('scan.stop').click();
    await expect(app.byId('scan.finish')).toBeVisible();
    await app.idle();
    const stopped = await app.state((s) => s.snapshot!.scan!);
    expect(stopped.done).toBe(false);
    await page.waitForTimeout(300);
    expect(await app.state((s) => s.snapshot!.scan!.calls)).toBe(stopped.calls);

    await app.byId('scan.finish').click();
    await expect(app.byId('scan.done')).toBeVisible({ timeout: 30_000 });
    await app.idle();
    const done = await app.state((s) => ({ calls: s.snapshot!.scan!.calls, entries: s.log.entries.length }));
    // Tens of thousands of calls, each of which used to be an action of
    // its own, in a few dozen actions and a few seconds.
    expect(done.calls).toBeGreaterThan(50_000);
    expect(done.entries - logged).toBeLessThan(200);
    expect(Date.now() - t0).toBeLessThan(30_000);
    await expect(app.scan.checker).toHaveAttribute('data-verdict', 'pass');
    expect(app.errors).toEqual([]);
  });

  test('a reload replays the input log and restores the console and the table', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 5 });
    await app.console.run('SET user:1 alice\nSELECT 3\nSET in3 x');
    await app.table.add(1000);
    await app.scan.start(10);
    await app.scan.step();
    const cursor = await app.scan.cursor.textContent();
    const logged = await app.state((s) => s.log.entries.length);

    await page.reload();
    await app.waitReady();
    await expect(app.console.prompt).toHaveText('127.0.0.1:6379[3]>');
    await expect(app.console.entries.first()).toContainText('SET user:1 alice');
    expect(await app.table.keys()).toBe(1001);
    await expect(app.scan.cursor).toHaveText(cursor ?? '');
    expect(await app.state((s) => s.log.entries.length)).toBe(logged);
    expect(await app.console.reply('GET user:1')).toBe('(nil)');
    await app.console.run('SELECT 0');
    expect(await app.console.reply('GET user:1')).toBe('"alice"');
    expect(app.errors).toEqual([]);
  });

  test('walks the command history with Up and Down', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await app.console.run('SET k 1');
    await app.console.run('GET k');
    await app.console.input.press('ArrowUp');
    await expect(app.console.input).toHaveValue('GET k');
    await app.console.input.press('ArrowUp');
    await expect(app.console.input).toHaveValue('SET k 1');
    await app.console.input.press('ArrowDown');
    await app.console.input.press('ArrowDown');
    await expect(app.console.input).toHaveValue('');
    await app.console.input.fill('SET half typed');
    await app.console.input.press('Escape');
    await expect(app.console.input).toHaveValue('');
    await expect(app.console.input).toBeFocused();
  });

  test('regression: a long command wraps after its prompt instead of moving below it', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await app.console.run('SET session:token "a fairly long value that does not fit on the line of the console"');
    const entry = app.console.entries.last();
    const prompt = await entry.locator('.prompt').boundingBox();
    const command = await entry.locator('.entry-cmd').boundingBox();
    expect(prompt && command).toBeTruthy();
    expect(Math.abs(command!.y - prompt!.y)).toBeLessThan(4);
    expect(command!.height).toBeGreaterThan(prompt!.height * 1.5);
  });

  test('fits the SCAN walker on a 1600x1000 screen without scrolling, while a rehash is under way', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 4 });
    await app.table.add(10_000);
    // The add leaves its last doubling under way: the walker beside both
    // tables, the tallest the pane gets.
    await app.scan.start(10);
    await app.scan.step();
    await app.scan.step();
    await expect(app.byId('ht.status')).toHaveAttribute('data-rehashing', 'yes');
    await expect(app.table.table(1)).toBeVisible();
    for (const id of ['scan.checker', 'scan.keys', 'scan.buckets']) {
      const box = await app.byId(id).boundingBox();
      expect(box!.y + box!.height, id).toBeLessThanOrEqual(1000);
    }
    expect(await page.locator('.views').evaluate((e) => e.scrollHeight - e.clientHeight)).toBeLessThanOrEqual(0);
    await app.screenshot('sandbox-1600x1000');
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.screenshot('sandbox-1280x720');
  });

  test('switches every visible text to Korean', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await app.table.add(100);
    await page.getByTestId('lang.ko').click();
    await expect(page.locator('#console-title')).toHaveText('콘솔');
    await expect(page.locator('#ht-title')).toHaveText('해시 테이블');
    await expect(page.getByTestId('scan.start')).toHaveText('순회 시작');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ko');
    await app.screenshot('sandbox-korean');
    await page.getByTestId('lang.en').click();
    await expect(page.locator('#console-title')).toHaveText('Console');
  });

  test('the Slabs pane, which has its own memcached console, hides the Redis console and takes the whole width', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open();
    await expect(app.console.input).toBeVisible();
    await slabs.show();
    await expect(app.console.input).toHaveCount(0);
    await expect(slabs.input).toBeVisible();
    const box = (await slabs.panel.boundingBox())!;
    expect(box.width).toBeGreaterThan(1400);
    await app.screenshot('slabs-pane-without-redis-console');
    await app.showPane('keys');
    await expect(app.console.input).toBeVisible();
    await app.console.run('PING');
    expect(await app.console.lastOutput()).toBe('PONG');
    expect(app.errors).toEqual([]);
  });
});

test.describe('the hash table controls', () => {
  test('step the rehash, pause and resume active rehashing in serverCron, and delete keys', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 13 });
    const status = page.getByTestId('ht.status');
    await app.table.add(1000);
    await expect(status).toHaveAttribute('data-rehashing', 'no');
    await app.table.add(100);
    await expect(status).toHaveAttribute('data-rehashing', 'yes');
    const idx = Number(await status.getAttribute('data-rehashidx'));
    await page.getByTestId('ht.rehash.step').click();
    await app.idle();
    expect(Number(await status.getAttribute('data-rehashidx'))).toBeGreaterThan(idx);

    await page.getByTestId('ht.activeRehashing').click();
    await app.idle();
    await expect(app.console.entries.last()).toContainText('CONFIG SET activerehashing no');
    await expect(page.getByTestId('ht.activeRehashing')).not.toBeChecked();
    const held = await status.getAttribute('data-rehashidx');
    await page.getByTestId('time.speed').selectOption('10');
    await page.getByTestId('time.play').click();
    await expect(page.getByTestId('time.clock')).not.toContainText('0:00:00.000');
    await page.waitForTimeout(300);
    await expect(status).toHaveAttribute('data-rehashidx', held ?? '');

    await page.getByTestId('ht.activeRehashing').click();
    await expect(status).toHaveAttribute('data-rehashing', 'no');
    await page.getByTestId('time.play').click();
    await app.idle();
    await expect(app.table.table(0)).toHaveAttribute('data-size', '2048');

    await app.table.remove(1000);
    await expect(app.console.entries.last()).toContainText('deleted 1,000 keys');
    expect(await app.table.keys()).toBe(100);
    expect(await app.console.reply('DBSIZE')).toBe('(integer) 100');

    await app.console.run('CONFIG SET activerehashing no');
    await expect(page.getByTestId('ht.activeRehashing')).not.toBeChecked();
    await app.console.run('config set hz 10 ACTIVEREHASHING yes');
    await expect(page.getByTestId('ht.activeRehashing')).toBeChecked();
    expect(app.errors).toEqual([]);
  });
});

test.describe('when the engine crashes', () => {
  test('the page says what happened and restarts from the input log without the crashing action', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 9 });
    await app.table.add(1000);
    await app.console.run('SET survivor yes');
    void page.evaluate(() => window.glasskv.act({ kind: 'trap' }));
    const dialog = page.getByTestId('crash.dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('unreachable');
    await expect(dialog).toContainText('deliberate trap');
    await app.screenshot('sandbox-crash');

    await page.getByTestId('crash.restart').click();
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('replaying action #3');

    await page.getByTestId('crash.restartWithout').click();
    await expect(dialog).toBeHidden();
    await app.waitReady();
    expect(await app.table.keys()).toBe(1001);
    expect(await app.console.reply('GET survivor')).toBe('"yes"');
    expect(await app.state((s) => s.log.entries.length)).toBe(3);
  });
});
