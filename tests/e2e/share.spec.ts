import { writeFileSync } from 'node:fs';
import { test, type Browser, type Page } from '@playwright/test';
import { encodeState } from '../../web/src/share/codec';
import { MAX_VIRTUAL_NS } from '../../web/src/share/validate';
import { HEAP_LIMIT_MAX } from '../../wasm/protocol';
import { AofPane } from './pages/aof';
import { SandboxPage, expect } from './pages/sandbox';

/** The engine's digest of the world's state, once nothing is in flight. */
async function digest(app: SandboxPage): Promise<string> {
  await app.idle();
  return app.page.evaluate(() => window.glasskv.digest());
}

/** Opens `url` in a fresh browser context (no storage shared with the
 *  page that made it) and waits for the engine. */
async function openFresh(browser: Browser, url: string, locale = 'en-US'): Promise<SandboxPage> {
  const context = await browser.newContext({ locale, viewport: { width: 1600, height: 1000 }, reducedMotion: 'reduce' });
  const app = new SandboxPage(await context.newPage());
  await app.page.goto(url);
  await app.waitReady();
  await app.idle();
  return app;
}

/** A link made in a browser context of its own (closed afterwards): a
 *  fresh session with this seed, changed by `make`; with that session's
 *  digest. */
async function linkFrom(browser: Browser, seed: number, make: (maker: SandboxPage) => Promise<void>):
  Promise<{ url: string; digest: string }> {
  const maker = await openFresh(browser, `./?fresh&seed=${seed}`);
  await make(maker);
  const url = await maker.page.evaluate(() => window.glasskv.shareLink());
  const made = await digest(maker);
  await maker.page.context().close();
  return { url, digest: made };
}

/** Copies the link with the Share dialog and reads it from the page. */
async function copyLink(app: SandboxPage): Promise<string> {
  await app.byId('share.open').click();
  await expect(app.byId('share.dialog')).toBeVisible();
  await app.byId('share.link.copy').click();
  await expect(app.byId('share.link.url.status')).toBeVisible();
  const url = await app.byId('share.link.url').inputValue();
  await app.screenshot('share-dialog');
  await app.byId('share.close').click();
  return url;
}

async function buildState(app: SandboxPage): Promise<void> {
  await app.console.run('SET greeting hello\nHSET user:1 name alice age 31\nSET ttl x PX 800000\nSELECT 2\nSADD s a b c');
  await app.console.run('SELECT 0');
  await app.table.add(1000);
  await app.scan.start(20);
  await app.scan.step();
  await app.scan.step();
  await app.byId('time.step').click();
  await app.idle();
  await app.byId('time.step').click();
  await app.idle();
}

function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

test.describe('sharing a state', () => {
  test('a copied link opened in a fresh browser context rebuilds the same engine state', async ({ page, browser }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 21 });
    await buildState(app);
    const want = await digest(app);
    const logged = await app.state((s) => s.log.entries.length);
    const url = await copyLink(app);
    expect(url).toMatch(/#s=[A-Za-z0-9_-]+$/);
    expect(url).toBe(await page.evaluate(() => window.glasskv.shareLink()));

    const other = await openFresh(browser, url);
    await expect(other.byId('share.notice')).toHaveAttribute('data-kind', 'opened');
    expect(await digest(other)).toBe(want);
    expect(await other.state((s) => s.log.entries.length)).toBe(logged);
    await expect(other.console.prompt).toHaveText('127.0.0.1:6379>');
    await expect(other.scan.cursor).toHaveText(await app.scan.cursor.textContent() ?? '');
    // The fragment is gone: a reload replays the saved session, the same state.
    expect(other.page.url()).not.toContain('#s=');
    await other.page.reload();
    await other.waitReady();
    expect(await digest(other)).toBe(want);
    // Acting on both keeps them equal: the same world, not a look-alike.
    await app.console.run('INCR visits');
    await other.console.run('INCR visits');
    expect(await digest(other)).toBe(await digest(app));
    expect(other.errors).toEqual([]);
    expect(app.errors).toEqual([]);
    await other.page.context().close();
  });

  test('a link keeps a rewound position and an open lesson step', async ({ page, browser }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 4 });
    await app.lesson.open('scan-rehashing');
    await app.lesson.goTo(1);
    await app.lesson.run('1.0');
    await app.lesson.answer('1.2', '16');
    await expect(app.lesson.block('1.2')).toHaveAttribute('data-verdict', 'right');
    await app.console.run('SET extra 1');
    const lessonWant = await app.lesson.state();
    const inLesson = await digest(app);
    const lessonUrl = await page.evaluate(() => window.glasskv.shareLink());

    const other = await openFresh(browser, lessonUrl);
    await expect(other.lesson.panel).toHaveAttribute('data-lesson', 'scan-rehashing');
    expect((await other.lesson.state()).active).toMatchObject({ id: 'scan-rehashing', step: 1, ran: lessonWant.active!.ran });
    expect(await digest(other)).toBe(inLesson);
    await expect(other.lesson.block('1.2')).toHaveAttribute('data-verdict', 'right');
    await other.page.context().close();

    // Rewound to the middle of the history.
    await app.open({ seed: 9 });
    await app.table.add(1000);
    await app.console.run('SET a 1');
    await app.byId('time.step').click();
    await app.console.run('SET b 2');
    // Just before the last action: the world is in the recorded past.
    const last = await app.state((s) => s.log.entries.at(-1)!.t);
    await page.evaluate((t) => window.glasskv.seek(t), last - 1);
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'no');
    const rewound = await digest(app);
    const url = await page.evaluate(() => window.glasskv.shareLink());
    const again = await openFresh(browser, url);
    await expect(again.byId('history')).toHaveAttribute('data-at-end', 'no');
    expect(await digest(again)).toBe(rewound);
    await again.page.context().close();
  });

  test('opening a link puts the reader\'s own session aside, and one click brings it back', async ({ page, browser }) => {
    const { url, digest: sharedDigest } = await linkFrom(browser, 31, (m) => m.console.run('SET shared yes'));

    const app = new SandboxPage(page);
    await app.open({ seed: 32 });
    await app.console.run('SET mine 1');
    await app.console.run('SET also 2');
    const mine = await digest(app);
    await page.goto(url);
    await app.waitReady();
    await expect(app.byId('share.notice')).toContainText('Your own session (2 actions) was put aside');
    expect(await digest(app)).toBe(sharedDigest);
    await app.screenshot('share-opened-notice');
    await app.byId('share.notice.restore').click();
    await expect(app.byId('share.notice')).toHaveAttribute('data-kind', 'restored');
    await app.waitReady();
    expect(await digest(app)).toBe(mine);
    expect(await app.console.reply('GET mine')).toBe('"1"');
    // The shared one is now the one put aside: the dialog offers it back.
    await app.byId('share.open').click();
    await expect(app.byId('share.previous')).toContainText('(1 action)');
    expect(app.errors).toEqual([]);
  });

  test('a second link opened after a first leaves the reader\'s own session aside, not the first link', async ({ page, browser }) => {
    const maker = await openFresh(browser, './?fresh&seed=31');
    await maker.console.run('SET first yes');
    const urlA = await maker.page.evaluate(() => window.glasskv.shareLink());
    await maker.console.run('SET second yes');
    const urlB = await maker.page.evaluate(() => window.glasskv.shareLink());
    await maker.page.context().close();

    const app = new SandboxPage(page);
    await app.open({ seed: 32 });
    await app.console.run('SET mine 1');
    await app.console.run('SET also 2');
    const mine = await digest(app);
    await page.goto(urlA);
    await app.waitReady();
    await expect(app.byId('share.notice')).toContainText('Your own session (2 actions) was put aside');
    await page.goto(urlB);
    await app.waitReady();
    await expect.poll(() => app.state((s) => s.log.entries.length)).toBe(2);
    const notice = app.byId('share.notice');
    await expect(notice).toContainText('had itself been opened from a link or a file and was unchanged, so it was not kept');
    await expect(notice).toContainText('Your own session (2 actions) stays put aside');
    await app.screenshot('share-second-link-notice');
    await app.byId('share.notice.restore').click();
    await expect(notice).toHaveAttribute('data-kind', 'restored');
    await app.waitReady();
    expect(await digest(app)).toBe(mine);
    expect(app.errors).toEqual([]);
  });

  test('a link is refused, and says so, when the reader\'s session cannot be put aside', async ({ page, browser }) => {
    const { url } = await linkFrom(browser, 31, (m) => m.console.run('SET shared yes'));

    const app = new SandboxPage(page);
    await app.open({ seed: 34 });
    await app.console.run('SET mine 1');
    const mine = await digest(app);
    // A full storage: the slot for the session put aside refuses writes.
    // (The link differs from the page's address by its fragment only, so
    // it opens in this document, through hashchange.)
    await page.evaluate(() => {
      const set = Storage.prototype.setItem;
      Storage.prototype.setItem = function (key: string, value: string) {
        if (key === 'glasskv.session.previous.v1') throw new DOMException('full', 'QuotaExceededError');
        set.call(this, key, value);
      };
    });
    await page.goto(url);
    await app.waitReady();
    const notice = app.byId('share.notice');
    await expect(notice).toHaveAttribute('data-kind', 'error');
    await expect(notice).toContainText('storage is full');
    await expect(notice).toContainText('Your session is unchanged');
    await expect(app.byId('share.notice.export')).toBeVisible();
    expect(await digest(app)).toBe(mine);
    await app.screenshot('share-storage-full');
    const download = page.waitForEvent('download');
    await app.byId('share.notice.export').click();
    expect((await download).suggestedFilename()).toMatch(/^glasskv-session-34-/);
    expect(app.errors).toEqual([]);
  });

  test('a link with a lesson step leaves that lesson\'s own progress as it was once the reader\'s session is back', async ({ page, browser }) => {
    const { url } = await linkFrom(browser, 35, (m) => m.lesson.open('scan-rehashing'));

    const app = new SandboxPage(page);
    await app.open({ seed: 36 });
    await app.console.run('SET mine 1');
    await app.lesson.open('scan-rehashing');
    await app.lesson.goTo(2);
    const progress = () => page.evaluate(() => JSON.parse(localStorage.getItem('glasskv.lessons.v1') ?? '{}').lessons?.['scan-rehashing']?.step);
    expect(await progress()).toBe(2);
    await page.goto(url);
    await app.waitReady();
    await expect(app.byId('share.notice')).toHaveAttribute('data-kind', 'opened');
    await expect.poll(progress).toBe(0);
    await app.byId('share.notice.restore').click();
    await expect(app.byId('share.notice')).toHaveAttribute('data-kind', 'restored');
    await app.waitReady();
    expect(await progress()).toBe(2);
    expect(await app.console.reply('GET mine')).toBe('"1"');
    expect(app.errors).toEqual([]);
  });

  test('a link past an hour of virtual time is refused, and a reload during a long replay brings back the reader\'s session', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 37 });
    await app.console.run('SET mine 1');
    const mine = await digest(app);
    const config = await app.state((s) => s.log.config);
    const link = async (to: number) => `./#s=${await encodeState({
      log: { version: 1, config, entries: [{ t: 0, action: { kind: 'console', text: 'SET theirs 1' } }, { t: 1, action: { kind: 'advance', to } }] },
    })}`;

    await page.goto(await link(MAX_VIRTUAL_NS + 1));
    const notice = app.byId('share.notice');
    await expect(notice).toHaveAttribute('data-kind', 'error');
    await expect(notice).toContainText('runs past 1 hour of virtual time');
    await app.waitReady();
    expect(await digest(app)).toBe(mine);

    // An hour is accepted but takes seconds to replay: a reload meanwhile
    // must not find the link's log saved as the session.
    await page.goto(await link(MAX_VIRTUAL_NS));
    await page.waitForFunction(() => window.glasskv.state().phase === 'loading');
    await page.reload();
    await app.waitReady();
    expect(await digest(app)).toBe(mine);
    expect(await app.console.reply('EXISTS theirs')).toBe('(integer) 0');
    expect(app.errors).toEqual([]);
  });

  test('damaged and hostile fragments say what is wrong and leave the session as it was', async ({ page }) => {
    const errors = pageErrors(page);
    const app = new SandboxPage(page);
    await app.open({ seed: 5 });
    await app.console.run('SET keep me');
    const before = await digest(app);
    const cases: [string, RegExp][] = [
      ['#s=%%%not-base64', /not base64url/],
      ['#s=AAAA_w', /not a valid compressed stream/],
      ['#s=' + 'A'.repeat(5), /not base64url/],
    ];
    // A valid stream holding JSON that is not a session, and a log with a
    // made-up action.
    const bad = await page.evaluate(async () => {
      const pack = async (v: string) => {
        const s = new Blob([v]).stream().pipeThrough(new CompressionStream('deflate-raw'));
        const b = new Uint8Array(await new Response(s).arrayBuffer());
        return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      };
      return [
        await pack('{"v":1,"log":'),
        await pack(JSON.stringify({ v: 1, log: { version: 1, config: { seed: 1, unixMsAtZero: 0, heapLimit: 0 }, entries: [{ t: 0, action: { kind: 'formatDisk' } }] } })),
        // Well formed, but a SCAN step with no walk started cannot replay.
        await pack(JSON.stringify({ v: 1, log: { version: 1, config: { seed: 1, unixMsAtZero: 0, heapLimit: 0 }, entries: [{ t: 0, action: { kind: 'scanStep' } }] } })),
      ];
    });
    cases.push([`#s=${bad[0]}`, /not valid JSON/], [`#s=${bad[1]}`, /action of its log is invalid \(#1: formatDisk\)/],
      [`#s=${bad[2]}`, /does not replay on this engine/]);
    for (const [hash, message] of cases) {
      await page.goto(`./${hash}`);
      await app.waitReady();
      await expect(app.byId('share.notice')).toHaveAttribute('data-kind', 'error');
      await expect(app.byId('share.notice')).toContainText(message);
      await expect(app.byId('share.notice')).toContainText('Your session is unchanged');
      expect(await digest(app)).toBe(before);
    }
    await app.screenshot('share-bad-link');
    expect(errors).toEqual([]);
  });

  test('a link whose state is out of range is refused, naming the field, and the reader\'s session is kept', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 23 });
    await app.console.run('SET mine 1');
    const mine = await digest(app);
    const config = await app.state((s) => s.log.config);
    const entry = (action: object) => ({ t: 0, action });
    const link = async (state: object) => `./#s=${await encodeState(state as Parameters<typeof encodeState>[0])}`;
    const cases: [object, string][] = [
      [{ log: { version: 1, config, entries: [entry({ kind: 'populate', db: 0, n: 1_000_001 })] } }, '(#1 populate.n)'],
      [{ log: { version: 1, config, entries: [entry({ kind: 'console', text: 'SET x 1' }), entry({ kind: 'populate', db: 16, n: 5 })] } },
        '(#2 populate.db)'],
      [{ log: { version: 1, config, entries: [entry({ kind: 'workload', preset: 'benchmark', clients: 10_001 })] } },
        '(#1 workload.clients)'],
      [{ log: { version: 1, config: { ...config, heapLimit: HEAP_LIMIT_MAX + 1 }, entries: [] } }, 'its configuration is invalid (heapLimit)'],
      [{ log: { version: 1, config, entries: [] }, at: -1 }, 'its position in time is invalid'],
    ];
    const notice = app.byId('share.notice');
    for (const [state, named] of cases) {
      await page.goto(await link(state));
      await app.waitReady();
      await expect(notice).toHaveAttribute('data-kind', 'error');
      await expect(notice).toContainText(named);
      await expect(notice).toContainText('Your session is unchanged');
      expect(await digest(app)).toBe(mine);
    }
    await app.screenshot('share-out-of-range');
    expect(await app.console.reply('EXISTS mine')).toBe('(integer) 1');
    const kept = await digest(app);
    await page.reload();
    await app.waitReady();
    expect(await digest(app)).toBe(kept);
    expect(app.errors).toEqual([]);
  });

  test('an exported file imported in a fresh context (picker or drop) rebuilds the same state', async ({ page, browser }, info) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 12 });
    await buildState(app);
    const want = await digest(app);
    await app.byId('share.open').click();
    const [download] = await Promise.all([page.waitForEvent('download'), app.byId('share.file.export').click()]);
    const path = info.outputPath('session.json');
    await download.saveAs(path);
    expect(download.suggestedFilename()).toMatch(/^glasskv-session-12-.*\.json$/);

    const other = await openFresh(browser, './?fresh&seed=99');
    await other.byId('share.open').click();
    await other.byId('share.file.input').setInputFiles(path);
    await expect(other.byId('share.notice')).toHaveAttribute('data-kind', 'opened');
    await other.waitReady();
    expect(await digest(other)).toBe(want);

    // Dropped on the page instead, in another fresh context.
    const text = await page.evaluate(() => window.glasskv.exportText());
    const third = await openFresh(browser, './?fresh&seed=98');
    await third.page.evaluate((body) => {
      const dt = new DataTransfer();
      dt.items.add(new File([body], 'session.json', { type: 'application/json' }));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt }));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
    }, text);
    await expect(third.byId('share.notice')).toHaveAttribute('data-kind', 'opened');
    await third.waitReady();
    expect(await digest(third)).toBe(want);

    // Not a session file: a clear refusal, nothing changed.
    const junk = info.outputPath('junk.json');
    writeFileSync(junk, '{"hello": "world"}');
    const kept = await digest(third);
    await third.byId('share.open').click();
    await third.byId('share.file.input').setInputFiles(junk);
    await expect(third.byId('share.notice')).toContainText('not a glasskv session file');
    expect(await digest(third)).toBe(kept);
    for (const a of [other, third]) await a.page.context().close();
  });

  test('a session too long for a link says so and is exported as a file instead', async ({ page, browser }, info) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 14 });
    // 80,000 random base64 characters do not compress below the link limit.
    const blob = await page.evaluate(() => {
      const a = new Uint8Array(60_000);
      crypto.getRandomValues(a);
      return btoa(String.fromCharCode(...a)).replace(/[+/=]/g, 'x');
    });
    await page.evaluate((v) => window.glasskv.act({ kind: 'console', text: `SET big ${v}` }), blob);
    await app.idle();
    await app.byId('share.open').click();
    await app.byId('share.link.copy').click();
    await expect(app.byId('share.link.url.tooLong')).toContainText('too long for a link');
    await expect(app.byId('share.link.url')).toHaveCount(0);
    await app.screenshot('share-too-long');
    const [download] = await Promise.all([page.waitForEvent('download'), app.byId('share.file.export').click()]);
    const path = info.outputPath('long.json');
    await download.saveAs(path);
    const other = await openFresh(browser, './?fresh&seed=1');
    await other.byId('share.open').click();
    await other.byId('share.file.input').setInputFiles(path);
    await expect(other.byId('share.notice')).toHaveAttribute('data-kind', 'opened');
    await other.waitReady();
    expect(await digest(other)).toBe(await digest(app));
    expect((await other.console.reply('STRLEN big'))).toBe(`(integer) ${blob.length}`);
    await other.page.context().close();
  });
});

test.describe('embed mode', () => {
  test('shows one view with its time controls, in the asked language, and keeps nothing in storage', async ({ page, browser }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 8 });
    await app.table.add(1000);
    await app.console.run('SET k v');
    const want = await digest(app);
    await app.byId('share.open').click();
    await app.byId('share.embed.view').selectOption('keys');
    await app.byId('share.embed.copy').click();
    const code = await app.byId('share.embed.code').inputValue();
    const src = /src="([^"]+)"/.exec(code)![1].replace(/&amp;/g, '&');
    expect(src).toContain('embed=1');
    expect(src).toContain('view=keys');

    // The snippet itself, in a page of another origin.
    const host = await browser.newContext();
    const hostPage = await host.newPage();
    await hostPage.setContent(`<!doctype html><title>course</title>${code}`);
    const frame = hostPage.frameLocator('iframe');
    await expect(frame.getByTestId('embed')).toHaveAttribute('data-view', 'keys');
    const inner = hostPage.frames().find((f) => f.url().includes('embed=1'))!;
    await inner.waitForFunction(() => window.glasskv?.state().phase === 'ready' && window.glasskv.state().inflight === 0);
    expect(await inner.evaluate(() => window.glasskv.digest())).toBe(want);
    await hostPage.screenshot({ path: 'test-results/embed-in-iframe.png' });
    await host.close();

    const embed = await openFresh(browser, src.replace('lang=en', 'lang=ko'));
    await expect(embed.byId('embed')).toHaveAttribute('data-view', 'keys');
    await expect(embed.byId('ht.keys')).toBeVisible();
    await expect(embed.byId('console.input')).toHaveCount(0);
    await expect(embed.byId('views.tab.loop')).toHaveCount(0);
    await expect(embed.page.locator('html')).toHaveAttribute('lang', 'ko');
    await expect(embed.byId('time.play')).toContainText('재생');
    expect(await digest(embed)).toBe(want);
    expect(await embed.page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('glasskv.')))).toEqual([]);
    await embed.screenshot('embed-keys-ko');
    await embed.page.context().close();

    const loop = await openFresh(browser, './?embed=1&view=loop&autoplay=1');
    await expect(loop.byId('embed')).toHaveAttribute('data-view', 'loop');
    await loop.page.waitForFunction(() => window.glasskv.state().snapshot?.playing === true);
    await loop.screenshot('embed-loop');
    expect(loop.errors).toEqual([]);
    await loop.page.context().close();
  });
});

test.describe('presenter mode and the keyboard', () => {
  test('presenter mode enlarges the page; Space, the arrows, R and ? drive it, but not while typing', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 6, pane: 'loop' });
    await app.console.run('SET a 1');
    await app.byId('present.toggle').click();
    await expect(page.locator('html')).toHaveClass(/presenter/);
    const size = await page.evaluate(() => getComputedStyle(document.documentElement).fontSize);
    expect(parseFloat(size)).toBeGreaterThan(17);

    await page.keyboard.press('?');
    await expect(app.byId('keys.dialog')).toBeVisible();
    await expect(app.byId('keys.dialog')).toContainText('Rewind to the start');
    await app.screenshot('presenter-shortcuts');
    await page.keyboard.press('Escape');
    await expect(app.byId('keys.dialog')).toBeHidden();

    const logged = await app.state((s) => s.log.entries.length);
    await page.keyboard.press('ArrowRight');
    await app.idle();
    expect(await app.state((s) => s.log.entries.at(-1)!.action.kind)).toBe('step');
    expect(await app.state((s) => s.log.entries.length)).toBe(logged + 1);
    const t1 = await app.state((s) => s.snapshot!.now);
    expect(t1).toBeGreaterThan(0);
    // ← goes back to just before that step.
    await page.keyboard.press('ArrowLeft');
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'no');
    await app.idle();
    expect(await app.state((s) => s.snapshot!.now)).toBeLessThan(t1);
    await app.byId('history.end').click();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'yes');
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.glasskv.state().snapshot?.playing === true);
    await page.waitForFunction((t) => window.glasskv.state().snapshot!.now > t, t1);
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.glasskv.state().snapshot?.playing === false);
    await app.screenshot('presenter-mode');

    // R goes back to the start: the state after what was logged at time 0
    // (the SET, which itself took virtual time), the world seek(0) shows.
    const atEnd = await digest(app);
    await page.keyboard.press('r');
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'no');
    await expect.poll(() => app.state((s) => s.snapshot!.now)).toBeLessThan(t1);
    const start = await app.state((s) => s.snapshot!.now);
    const rewound = await digest(app);
    expect(rewound).not.toBe(atEnd);
    await app.byId('history.end').click();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'yes');
    await page.evaluate(() => window.glasskv.seek(0));
    expect(await digest(app)).toBe(rewound);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowLeft');
    await app.idle();
    expect(await app.state((s) => s.snapshot!.now)).toBe(start);

    // Keys typed in the console stay in the console.
    await app.byId('history.end').click();
    await app.idle();
    const before = await app.state((s) => s.log.entries.length);
    await app.console.input.click();
    await page.keyboard.type('r ?');
    await expect(app.console.input).toHaveValue('r ?');
    await expect(app.byId('keys.dialog')).toBeHidden();
    await app.console.input.press('ArrowRight');
    await app.idle();
    expect(await app.state((s) => s.log.entries.length)).toBe(before);
    expect(await app.state((s) => s.snapshot!.playing)).toBe(false);

    // The console's transcript scrolls with Space and the arrows: they do
    // not play or step while it has the focus.
    await app.byId('console.transcript').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    await app.idle();
    expect(await app.state((s) => s.log.entries.length)).toBe(before);
    expect(await app.state((s) => s.snapshot!.playing)).toBe(false);

    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('p');
    await expect(page.locator('html')).not.toHaveClass(/presenter/);
    expect(app.errors).toEqual([]);
  });

  test('Present keeps the keyboard focus, and a dialog keeps Tab and every shortcut to itself', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 8, pane: 'loop' });
    await app.console.run('SET a 1');
    const toggle = app.byId('present.toggle');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('html')).toHaveClass(/presenter/);
    await expect(toggle).toBeFocused();
    // The arrows still step time from that button.
    const logged = await app.state((s) => s.log.entries.length);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => app.state((s) => s.log.entries.length)).toBe(logged + 1);
    await page.keyboard.press('Enter');
    await expect(page.locator('html')).not.toHaveClass(/presenter/);
    await expect(toggle).toBeFocused();

    // The Share dialog holds a hidden file input: Tab and Shift+Tab go
    // round the rendered controls and never leave the dialog.
    await app.byId('share.open').click();
    const dialog = app.byId('share.dialog');
    await expect(dialog).toBeVisible();
    const inside = () => page.evaluate(() => document.querySelector('[data-testid="share.dialog"]')!.contains(document.activeElement));
    const stops = await dialog.locator('button:enabled:visible, a[href]:visible, input:enabled:visible, select:enabled:visible, textarea:enabled:visible').count();
    expect(stops).toBeGreaterThan(3);
    for (let i = 0; i < stops + 2; i++) {
      await page.keyboard.press('Tab');
      expect(await inside(), `Tab ${i + 1}`).toBe(true);
    }
    for (let i = 0; i < stops + 2; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await inside(), `Shift+Tab ${i + 1}`).toBe(true);
    }
    // R, P and ? belong to the dialog while it is open.
    await app.byId('share.close').focus();
    const now = await app.state((s) => s.snapshot!.now);
    for (const key of ['r', 'p', '?', 'ArrowLeft']) await page.keyboard.press(key);
    await app.idle();
    await expect(page.locator('html')).not.toHaveClass(/presenter/);
    await expect(app.byId('keys.dialog')).toBeHidden();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'yes');
    expect(await app.state((s) => s.snapshot!.now)).toBe(now);
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    expect(app.errors).toEqual([]);
  });

  test('Space on a focused select or checkbox keeps its own meaning and never toggles play', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 6 });
    await aof.show();
    await aof.enable();
    // Each control is changed first (which runs an action and re-renders
    // the panel), then Space is pressed on it while it keeps the focus.
    const appendonly = app.byId('aof.appendonly');
    await appendonly.click();
    await app.idle();
    await expect(appendonly).toBeFocused();
    const checked = await appendonly.isChecked();
    await page.keyboard.press(' ');
    await app.idle();
    await expect(appendonly).toBeChecked({ checked: !checked });
    expect(await app.state((s) => s.snapshot!.playing)).toBe(false);

    const fsync = app.byId('aof.fsync');
    await fsync.selectOption('always');
    await app.idle();
    await fsync.focus();
    await page.keyboard.press(' ');
    await page.keyboard.press('Escape');
    await app.idle();
    await expect(fsync).toBeFocused();
    expect(await app.state((s) => s.snapshot!.playing)).toBe(false);

    // While playing: changing the speed, then Space on the select, must
    // not pause.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.glasskv.state().snapshot?.playing === true);
    const speed = app.byId('time.speed');
    const options = await speed.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    // (selectOption does not focus the select; a person's click does.)
    for (const o of options.slice(0, 2)) {
      await speed.selectOption(o);
      await speed.focus();
      await page.keyboard.press(' ');
      await page.keyboard.press('Escape');
      await expect(speed).toBeFocused();
    }
    await app.idle();
    expect(await app.state((s) => s.snapshot!.playing)).toBe(true);
    await appendonly.click();
    await page.keyboard.press(' ');
    // Time keeps moving: a Space taken as pause would have stopped it.
    const moving = await app.state((s) => s.snapshot!.now);
    await expect.poll(() => app.state((s) => s.snapshot!.now)).toBeGreaterThan(moving);
    await app.idle();
    expect(await app.state((s) => s.snapshot!.playing)).toBe(true);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.glasskv.state().snapshot?.playing === false);

    // Every select and checkbox of every pane, in presenter mode.
    await app.byId('present.toggle').click();
    await expect(page.locator('html')).toHaveClass(/presenter/);
    let tried = 0;
    for (const pane of ['loop', 'keys', 'inspect', 'aof', 'slabs'] as const) {
      await app.showPane(pane);
      const controls = page.locator('select:enabled:visible, input[type=checkbox]:enabled:visible');
      const n = await controls.count();
      tried += n;
      for (let i = 0; i < n; i++) {
        const c = controls.nth(i);
        await c.focus();
        await page.keyboard.press(' ');
        if (await c.evaluate((el) => el instanceof HTMLSelectElement)) await page.keyboard.press('Escape');
        await app.idle();
        expect(await app.state((s) => s.snapshot!.playing), `${pane} control ${i}`).toBe(false);
      }
    }
    // The speed, the db, the counts and active rehashing at least (the
    // AOF's controls depend on whether Space left appendonly on).
    expect(tried).toBeGreaterThanOrEqual(5);
    expect(app.errors).toEqual([]);
  });
});
