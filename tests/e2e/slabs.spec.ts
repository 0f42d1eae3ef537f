import { test } from '@playwright/test';
import { SlabsPane } from './pages/slabs';
import { SandboxPage, expect } from './pages/sandbox';

test.describe('the Slabs pane', () => {
  test('the quick set sends values past 64 KB and up to memcached\'s own refusal, its note follows the fields, and the pages view opens on a class with pages', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await page.setViewportSize({ width: 1440, height: 900 });
    await slabs.show();
    const size = app.byId('slabs.quick.size');
    const send = app.byId('slabs.quick.send');
    await app.byId('slabs.quick.key').fill('small');
    await size.fill('100');
    await send.click();
    await app.idle();
    await expect(slabs.lastReply).toHaveText('STORED\\r\\n');
    // 48 + 5 + 1 + 102 + 8 = 164 bytes: class 4 (192); class 1 holds no page.
    await expect(app.byId('slabs.pages')).toHaveAttribute('data-cls', '4');

    // The note follows the fields as they change (no key is pressed here).
    await app.byId('slabs.quick.key').fill('big');
    await size.fill('600000');
    await expect(app.byId('slabs.landing')).toHaveAttribute('data-cls', '39');
    await expect(send).toBeEnabled();
    await send.click();
    await app.idle();
    await expect(slabs.lastReply).toHaveText('STORED\\r\\n');
    expect(await app.state((s) => s.log.entries.at(-1)!.action)).toEqual({ kind: 'mcSet', key: 'big', flags: 0, bytes: 600000 });
    await size.fill('2000000');
    await expect(app.byId('slabs.landing')).toHaveAttribute('data-cls', '0');
    await send.click();
    await app.idle();
    await expect(slabs.lastReply).toHaveText('SERVER_ERROR object too large for cache\\r\\n');
    await size.fill('20000000');
    await expect(send).toBeDisabled();
    await expect(app.byId('slabs.quick.why')).toContainText('16 MiB');
    await app.screenshot('labs/slabs-quick-set');
    expect(app.errors).toEqual([]);
  });

  test('the class table gives every size with its unit, bytes or KiB or MiB, in English and Korean', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    for (const [key, bytes] of [['small', 100], ['mid', 20_000], ['big', 600_000]] as const) {
      await app.byId('slabs.quick.key').fill(key);
      await app.byId('slabs.quick.size').fill(String(bytes));
      await app.byId('slabs.quick.send').click();
      await app.idle();
      await expect(slabs.lastReply).toHaveText('STORED\\r\\n');
    }
    const SIZE = /^\d{1,3}(,\d{3})*(\.\d)? (B|KiB|MiB)$/;
    // The cells of chunk size, requested, in used chunks and waste, in the
    // rows of the classes and in the total row (which has no chunk size).
    const sizes = () => app.byId('slabs.classes').evaluate((table) => [...table.querySelectorAll('tbody tr, tfoot tr')]
      .flatMap((tr) => [0, 5, 6, 7].map((i) => tr.querySelectorAll('td')[i]?.textContent ?? ''))
      .filter((text, i) => text !== '' || i % 4 !== 0));
    for (const lang of ['en', 'ko'] as const) {
      await app.byId(`lang.${lang}`).click();
      const cells = await sizes();
      expect(cells.length).toBeGreaterThan(39 * 4);
      for (const text of cells) expect(text).toMatch(SIZE);
      expect(cells.some((text) => text.endsWith(' KiB'))).toBe(true);
      await expect(slabs.row(1).locator('td').first()).toHaveText('96 B');
      await expect(slabs.row(39).locator('td').first()).toHaveText('524,288 B');
    }
    await app.byId('slabs.classes').screenshot({ path: 'test-results/slabs-table-units.png' });
    expect(app.errors).toEqual([]);
  });

  test('sets typed in the memcached console take chunks of the class the engine picks', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    await expect(app.byId('slabs.notStarted')).toBeVisible();

    await slabs.send('set greeting 0 0 5');
    await expect(slabs.lastReply).toContainText('(no reply yet');
    await slabs.send('hello');
    await expect(slabs.lastReply).toHaveText('STORED\\r\\n');
    await expect(app.byId('slabs.status')).toHaveAttribute('data-items', '1');
    // 48 + "greeting" 8 + 1 + "hello" 5 + 2 + CAS 8 = 72 bytes: class 1 (96).
    await expect(slabs.row(1)).toHaveAttribute('data-used', '1');

    // While a set line is typed, its class is marked, as the engine says.
    // 48 + "user:1" 6 + 1 + 300 + 2 + 8 = 365 bytes: class 7 (384-byte chunks).
    await slabs.input.fill('set user:1 0 0 300');
    await expect(app.byId('slabs.landing')).toBeVisible();
    expect(await slabs.landing()).toBe(7);
    await expect(app.byId('slabs.landing')).toContainText('365');
    await expect(slabs.row(7)).toHaveClass(/landing/);
    await slabs.input.fill('set big 0 0 2000000');
    await expect(app.byId('slabs.landing')).toHaveAttribute('data-cls', '0');
    await slabs.input.fill('');

    // Quick sets of 300 bytes fill class 7 chunk by chunk.
    await app.byId('slabs.quick.size').fill('300');
    for (let i = 1; i <= 5; i++) {
      await app.byId('slabs.quick.key').fill(`user:${i}`);
      await app.byId('slabs.quick.send').click();
      await app.idle();
    }
    await expect(slabs.row(7)).toHaveAttribute('data-used', '5');
    await slabs.selectClass(7);
    await expect(app.byId('slabs.canvas')).toBeVisible();
    await expect(app.byId('slabs.head')).toContainText('page 0');
    // One more set while class 7 is shown: the chunk it takes is outlined
    // (held still: the tests run with reduced motion).
    await app.byId('slabs.quick.key').fill('user:6');
    await app.byId('slabs.quick.send').click();
    await app.idle();
    await expect(slabs.row(7)).toHaveAttribute('data-used', '6');
    await expect(app.byId('slabs.canvas')).toHaveAttribute('data-fresh', '1');
    // A resize redraws the pages and keeps the outline of the chunk just taken.
    const wide = await app.byId('slabs.canvas').evaluate((c) => (c as HTMLCanvasElement).width);
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: size.width - 200, height: size.height });
    await expect.poll(() => app.byId('slabs.canvas').evaluate((c) => (c as HTMLCanvasElement).width)).not.toBe(wide);
    await expect(app.byId('slabs.canvas')).toHaveAttribute('data-fresh', '1');
    await page.setViewportSize(size);
    await expect.poll(() => app.byId('slabs.canvas').evaluate((c) => (c as HTMLCanvasElement).width)).toBe(wide);
    await expect(app.byId('slabs.canvas')).toHaveAttribute('data-fresh', '1');
    await app.byId('slabs.canvas').screenshot({ path: 'test-results/slabs-canvas-just-taken.png' });
    await app.screenshot('slabs-sets');
    await slabs.screenshot('slabs-panel-sets');

    // A toggle keeps its name and says its state with aria-pressed.
    const activeOnly = app.byId('slabs.activeOnly');
    await expect(activeOnly).toHaveAttribute('aria-pressed', 'false');
    await activeOnly.click();
    await expect(activeOnly).toHaveAttribute('aria-pressed', 'true');
    await expect(activeOnly).toHaveAccessibleName('Only classes with pages');
    // Classes 1 (greeting) and 7 (the user:N items) have pages.
    await expect(page.locator('[data-testid^="slabs.class."]')).toHaveCount(2);
    await activeOnly.click();
    await expect(page.locator('[data-testid^="slabs.class."]')).toHaveCount(39);
    await expect(page.getByRole('group', { name: 'Show the pages as' })).toBeVisible();
    await app.byId('slabs.asTable').click();
    const row = app.byId('slabs.pagesTable').locator('tbody tr').first();
    await expect(row.locator('td').first()).toHaveText('6');
    await app.byId('slabs.asGrid').click();

    // The same numbers come back through the test handle.
    const view = await page.evaluate(() => window.glasskv.slabs({ what: 'view', cls: 7, from: 0, pages: 1 }));
    expect(view!.classes[6].usedChunks).toBe(6);
    expect([...view!.pages[0].chunks].filter((b) => b === 365).length).toBe(6);
    expect(app.errors).toEqual([]);
  });

  test('the factor slider changes the class ladder the engine lays out, and Apply restarts the node with it', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    await expect(app.byId('slabs.whatif.result')).toHaveAttribute('data-classes', '39');
    const f = slabs.slider('f');
    await f.focus();
    // From 1.25 to 2.00 with the keyboard: 75 steps of 0.01.
    for (let i = 0; i < 75; i++) await f.press('ArrowRight');
    await expect(f).toHaveValue('2');
    await expect(app.byId('slabs.whatif.result')).not.toHaveAttribute('data-classes', '39');
    const wanted = await slabs.whatIfClasses();
    expect(wanted).toBeLessThan(39);
    await app.screenshot('slabs-whatif-factor-2');
    await app.byId('slabs.apply').click();
    await app.idle();
    await expect(app.byId('slabs.classes')).toHaveAttribute('data-classes', String(wanted));
    await expect(app.byId('slabs.status')).toContainText('-f 2');
    await page.getByRole('button', { name: '한국어' }).click();
    await expect(app.byId('slabs.panel')).toContainText('슬랩 클래스');
    await slabs.screenshot('slabs-panel-korean');
    expect(app.errors).toEqual([]);
  });

  test('a workload whose values grow evicts in large classes while small ones keep free chunks', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    await app.byId('slabs.fill.preset').click();
    await expect(app.byId('slabs.fill.progress')).toHaveAttribute('data-sent', '40000', { timeout: 60_000 });
    await app.idle();
    await expect(app.byId('slabs.calc')).toBeVisible();
    const evictions = Number(await app.byId('slabs.status').getAttribute('data-evictions'));
    expect(evictions).toBeGreaterThan(0);
    await expect(app.byId('slabs.status')).toContainText('-m 8');
    // The log holds the restart and one action per slice: replayable.
    const kinds = await app.state((s) => s.log.entries.map((e) => e.action.kind));
    expect(kinds.filter((k) => k === 'mcFill').length).toBe(20);
    // A class that evicted and has no free chunk left, beside others with free chunks.
    const evicting = page.locator('[data-testid^="slabs.class."].evicting[data-free="0"]').first();
    const cls = Number((await evicting.getAttribute('data-testid'))!.split('.').pop());
    await slabs.selectClass(cls);
    await expect(app.byId('slabs.calc')).toContainText(String(cls));
    await expect(app.byId('slabs.head')).toContainText('empty');
    await app.screenshot('slabs-calcification');
    await slabs.screenshot('slabs-panel-calcification');

    // Rewinding to before the 8th slice shows the node as it was then; forward again, as it is.
    const log = await app.state((s) => s.log.entries);
    const slice8 = log.filter((e) => e.action.kind === 'mcFill')[7];
    await page.evaluate((t) => window.glasskv.seek(t), slice8.t - 1);
    await expect(app.byId('slabs.fill.progress')).toHaveAttribute('data-sent', '14000');
    const earlier = Number(await app.byId('slabs.status').getAttribute('data-evictions'));
    expect(earlier).toBeLessThan(evictions);
    await page.evaluate((t) => window.glasskv.seek(t), log.at(-1)!.t + 1e9);
    await expect(app.byId('slabs.status')).toHaveAttribute('data-evictions', String(evictions));

    // Reloading replays the log to the same node.
    await page.reload();
    await app.waitReady();
    await expect(app.byId('slabs.status')).toHaveAttribute('data-evictions', String(evictions));
    expect(app.errors).toEqual([]);
  });
  test('the slab labs\' Run buttons look like the page\'s other buttons', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    const look = (id: string) => app.byId(id).evaluate((e) => {
      const s = getComputedStyle(e);
      return [s.backgroundColor, s.borderTopColor, s.borderTopLeftRadius, s.fontSize, s.fontWeight].join(' ');
    });
    const page_ = await look('slabs.quick.send');
    for (const name of ['slab-classes', 'item-placement', 'slab-calcification']) {
      expect(await look(`slabs.lab.${name}.run`), name).toBe(page_);
    }
    expect(app.errors).toEqual([]);
  });

  test('the slab labs run headless in the worker and each run is told in words with its own figures', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    const logBefore = await app.state((s) => s.log.entries.length);

    await app.byId('slabs.lab.slab-classes.run').click();
    await expect(app.byId('slabs.lab.slab-classes.table')).toBeVisible();
    // memcached 1.6.18 -vv with the defaults: 39 classes, 96 bytes and
    // 10922 per page first, 524288 and 2 per page last.
    const rows = app.byId('slabs.lab.rows.0').locator('tbody tr');
    await expect(rows).toHaveCount(39);
    await expect(rows.first().locator('td').nth(1)).toHaveText('96');
    await expect(rows.first().locator('td').nth(2)).toHaveText('10,922');
    await expect(rows.last().locator('td').nth(1)).toHaveText('524,288');
    const classes = app.byId('slabs.lab.slab-classes.explain').locator('li');
    await expect(classes).toHaveCount(2);
    await expect(classes.first()).toContainText(
      '39 classes, from 96-byte chunks (10,922 per 1,048,576-byte page) to class 39 at 524,288 bytes (2 per page)');
    // -f 2: the run's own ladder, fewer classes.
    const f2 = Number((await app.byId('slabs.lab.rows.1').locator('tbody tr').count()));
    expect(f2).toBeLessThan(39);
    await expect(classes.nth(1)).toContainText(`${f2} classes`);
    await app.byId('slabs.labs').screenshot({ path: 'test-results/slabs-lab-classes.png' });

    await app.byId('slabs.lab.item-placement.run').click();
    const items = app.byId('slabs.lab.item-placement.explain').locator('li');
    await expect(items.first()).toBeVisible();
    const n = await app.byId('slabs.lab.rows.0').locator('tbody tr').count();
    await expect(items).toHaveCount(n);
    // ntotal = 48 + (10 + 1) + (100 + 2) + 8 = 169: class 4, 192-byte chunks.
    await expect(items.filter({ hasText: 'A 10-byte key and a 100-byte value make an item of 169 bytes' }))
      .toContainText('class 4, whose 192-byte chunk leaves 23 bytes unused');
    await expect(items.filter({ hasText: 'slab_chunk_max' }).first()).toContainText('chunked item');
    await expect(items.last()).toContainText('SERVER_ERROR object too large for cache');
    await app.byId('slabs.labs').screenshot({ path: 'test-results/slabs-lab-items.png' });

    await app.byId('slabs.lab.slab-calcification.run').click();
    const table = app.byId('slabs.lab.slab-calcification.table');
    await expect(table).toBeVisible({ timeout: 60_000 });
    const calc = app.byId('slabs.lab.slab-calcification.explain').locator('li');
    await expect(calc).toHaveCount(2);
    // The sentence carries the figures of the table's column for its run.
    const figure = async (label: string, run: number) =>
      (await table.locator('> table tbody tr', { has: page.getByRole('rowheader', { name: label, exact: true }) })
        .locator('td').nth(run).textContent())!.trim();
    const evictions = await figure('evictions', 0);
    expect(Number(evictions.replace(/,/g, ''))).toBeGreaterThan(0);
    await expect(calc.first()).toContainText(`gave ${evictions} evictions`);
    await expect(calc.first()).toContainText(`${await figure('bytes in free chunks', 0)} bytes`);
    await app.byId('slabs.labs').screenshot({ path: 'test-results/slabs-lab-calcification.png' });

    await page.getByRole('button', { name: '한국어' }).click();
    await expect(calc.first()).toContainText(`축출이 ${evictions}번`);
    await app.byId('slabs.lab.slab-classes.run').click();
    await expect(app.byId('slabs.lab.slab-classes.explain').locator('li').first()).toContainText('클래스 39개');
    await app.byId('slabs.labs').screenshot({ path: 'test-results/slabs-lab-classes-ko.png' });

    // Headless: the sandbox's log did not move.
    expect(await app.state((s) => s.log.entries.length)).toBe(logBefore);
    expect(app.errors).toEqual([]);
  });

  test('an embed of the Slabs view shows the Slabs pane with the shared node, not the event-loop views', async ({ page, browser }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    await app.byId('slabs.quick.size').fill('300');
    for (let i = 1; i <= 3; i++) {
      await app.byId('slabs.quick.key').fill(`user:${i}`);
      await app.byId('slabs.quick.send').click();
      await app.idle();
    }
    await expect(slabs.row(7)).toHaveAttribute('data-used', '3');
    await app.byId('share.open').click();
    await app.byId('share.embed.view').selectOption('slabs');
    await app.byId('share.embed.copy').click();
    const code = await app.byId('share.embed.code').inputValue();
    const src = /src="([^"]+)"/.exec(code)![1].replace(/&amp;/g, '&');
    expect(src).toContain('view=slabs');

    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, reducedMotion: 'reduce' });
    const embed = new SandboxPage(await context.newPage());
    await embed.page.goto(src);
    await embed.waitReady();
    await embed.idle();
    await expect(embed.byId('embed')).toHaveAttribute('data-view', 'slabs');
    await expect(embed.byId('slabs.panel')).toBeVisible();
    await expect(embed.byId('slabs.class.7')).toHaveAttribute('data-used', '3');
    await expect(embed.byId('loop.pane')).toHaveCount(0);
    await embed.screenshot('embed-slabs');
    expect(embed.errors).toEqual([]);
    await context.close();
  });

  test('a running fill stops when a new session boots and logs nothing into it', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    await app.byId('slabs.fill.preset').click();
    await expect(app.byId('slabs.fill.stop')).toBeEnabled();
    await expect.poll(() => app.state((s) => s.log.entries.filter((e) => e.action.kind === 'mcFill').length))
      .toBeGreaterThan(0);
    // New session at a moment a request is in flight (most often a slice),
    // so its answer comes after the boot has begun.
    await page.evaluate(() => new Promise<void>((resolve) => {
      window.confirm = () => true;
      const tick = () => {
        if (window.glasskv.state().inflight === 0) return void setTimeout(tick, 0);
        document.querySelector<HTMLButtonElement>('[data-testid="session.new"]')!.click();
        resolve();
      };
      tick();
    }));
    await expect(app.byId('slabs.fill.stop')).toBeDisabled();
    await app.waitReady();
    await app.idle();
    const kinds = await app.state((s) => s.log.entries.map((e) => e.action.kind));
    expect(kinds).not.toContain('mcFill');
    expect(kinds).not.toContain('mcStart');
    expect(await page.evaluate(() => window.glasskv.state().error)).toBeNull();
    expect(app.errors).toEqual([]);
  });

  test('the lab tables write numbers as the UI language does, whatever the browser locale', async ({ browser }) => {
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 1600, height: 1000 }, reducedMotion: 'reduce' });
    const app = new SandboxPage(await context.newPage());
    const slabs = new SlabsPane(app);
    await app.page.goto('./?fresh&seed=5&lang=en');
    await app.waitReady();
    await slabs.show();
    await app.byId('slabs.lab.slab-classes.run').click();
    const first = app.byId('slabs.lab.rows.0').locator('tbody tr').first();
    // German would write 10.922.
    await expect(first.locator('td').nth(2)).toHaveText('10,922');
    // So does the class table: per page, then free chunks of class 1.
    await slabs.send('set a 0 0 1');
    await slabs.send('x');
    await expect(slabs.row(1).locator('td').nth(1)).toHaveText('10,922');
    await expect(slabs.row(1).locator('td').nth(4)).toHaveText('10,921');
    expect(app.errors).toEqual([]);
    await context.close();
  });

  test('a long value is cut in the console to its first 120 characters and its size, and opens whole on request', async ({ page }) => {
    const app = new SandboxPage(page);
    const slabs = new SlabsPane(app);
    await app.open({ seed: 5 });
    await slabs.show();
    await slabs.send('set greeting 0 0 5');
    await slabs.send('hello');
    await app.byId('slabs.quick.key').fill('page:1');
    await app.byId('slabs.quick.size').fill('1000');
    await app.byId('slabs.quick.send').click();
    await app.idle();
    await slabs.send('get page:1');
    const transcript = app.byId('slabs.transcript');
    // The set's value line and the get's VALUE data line, both cut.
    const more = transcript.getByTestId('slabs.line.more');
    await expect(more).toHaveCount(2);
    await expect(more.first()).toHaveText('… (1,000 bytes)');
    const set = transcript.locator('.mc-in').filter({ hasText: 'set page:1 0 0 1000' });
    expect((await set.textContent())!.length).toBeLessThan(200);
    // A few lines tall, not a screenful: the lines before it stay in view.
    const lines = () => set.evaluate((e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight));
    expect(await lines()).toBeLessThan(4);
    await more.first().click();
    await expect(more.first()).toHaveAttribute('aria-expanded', 'true');
    await expect(set).toContainText('x'.repeat(1000));
    expect(await lines()).toBeGreaterThan(4);
    await more.first().click();
    await expect(set).not.toContainText('x'.repeat(121));
    await expect(slabs.lastReply).toContainText('END');
    expect(app.errors).toEqual([]);
  });

  for (const lang of ['en', 'ko'] as const) {
    test(`on a phone the Slabs pane fits the screen, the what-if values in view (${lang})`, async ({ browser }) => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, reducedMotion: 'reduce' });
      const app = new SandboxPage(await context.newPage());
      const slabs = new SlabsPane(app);
      await app.page.goto(`./?fresh&seed=5&lang=${lang}`);
      await app.waitReady();
      await app.byId(`lang.${lang}`).click();
      await slabs.show();
      await app.byId('slabs.quick.size').fill('300');
      await app.byId('slabs.quick.send').click();
      await app.idle();
      await app.expectNoSideScroll();
      for (const name of ['f', 'n', 'I', 'm'] as const) {
        const out = app.page.locator(`output[for="slabs.${name}"]`);
        await out.scrollIntoViewIfNeeded();
        await expect(out).toBeInViewport({ ratio: 1 });
        await expect(slabs.slider(name)).toBeInViewport({ ratio: 1 });
      }
      await app.byId('slabs.whatif').scrollIntoViewIfNeeded();
      await app.screenshot(`slabs-phone-whatif-${lang}`);
      expect(app.errors).toEqual([]);
      await context.close();
    });
  }
  for (const [size, viewport] of [['1280x720', { width: 1280, height: 720 }], ['390x844', { width: 390, height: 844 }]] as const) {
    for (const lang of ['en', 'ko'] as const) {
      test(`the chunk sizes are read from a projector, and the quick set lines up on one row (${size}, ${lang})`, async ({ browser }) => {
        const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
        const app = new SandboxPage(await context.newPage());
        const slabs = new SlabsPane(app);
        await app.page.goto(`./?fresh&seed=5&lang=${lang}`);
        await app.waitReady();
        await slabs.show();
        // The ladder of chunk sizes: body-like type, at least 13 px.
        const chips = app.page.locator('.whatif-ladder span');
        expect(await chips.count()).toBeGreaterThan(10);
        for (const px of await chips.evaluateAll((els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)))) {
          expect(px).toBeGreaterThanOrEqual(13);
        }
        // The quick set: its name above its fields or level with them, never
        // between; the button on the fields' row, its word on one line.
        const form = app.page.locator('form[aria-label]').filter({ has: app.byId('slabs.quick.send') });
        const geo = await form.evaluate((f) => {
          const box = (e: Element) => e.getBoundingClientRect();
          const title = box(f.querySelector('.slabs-form-title, strong')!);
          const labels = [...f.querySelectorAll('label')].map(box);
          const inputs = [...f.querySelectorAll('input')].map(box);
          const button = f.querySelector('[data-testid="slabs.quick.send"]')!;
          // The lines its word is set on: one top per line box.
          const range = document.createRange();
          range.selectNodeContents(button);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
          return { title, labels, inputs, button: box(button), lines };
        });
        const mid = (b: { top: number; bottom: number }) => (b.top + b.bottom) / 2;
        const above = geo.title.bottom <= Math.min(...geo.labels.map((l) => l.top)) + 1;
        const level = Math.abs(mid(geo.title) - mid(geo.inputs[0])) <= 2;
        expect(above || level, `title ${geo.title.top}-${geo.title.bottom}, input ${geo.inputs[0].top}-${geo.inputs[0].bottom}`).toBe(true);
        expect(geo.lines).toBe(1);
        for (const input of geo.inputs) {
          expect(Math.abs(input.top - geo.inputs[0].top)).toBeLessThanOrEqual(1);
          expect(Math.abs(mid(geo.button) - mid(input))).toBeLessThanOrEqual(2);
        }
        await app.expectNoSideScroll();
        await app.byId('slabs.quick.send').scrollIntoViewIfNeeded();
        await app.screenshot(`slabs-quickset-${size}-${lang}`);
        expect(app.errors).toEqual([]);
        await context.close();
      });
    }
  }
});
