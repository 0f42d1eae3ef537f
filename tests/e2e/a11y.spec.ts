import AxeBuilder from '@axe-core/playwright';
import { test, type Browser, type Page } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';

/** Serious and critical axe-core violations on the page as it is now. */
async function violations(page: Page, label: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

async function phone(browser: Browser, locale: string): Promise<SandboxPage> {
  const context = await browser.newContext({
    locale, viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, reducedMotion: 'reduce',
  });
  return new SandboxPage(await context.newPage());
}

/** The page does not scroll sideways: nothing is wider than the screen. */
async function expectNoSideScroll(app: SandboxPage): Promise<void> {
  await app.expectNoSideScroll();
}

test.describe('accessibility', () => {
  test('axe-core finds no serious or critical violation on the main pages', async ({ page, browser }) => {
    const app = new SandboxPage(page);
    const found: string[] = [];
    await app.open({ seed: 3, pane: 'loop' });
    await app.console.run('SET a 1');
    await app.idle();
    found.push(...await violations(page, 'loop pane'));
    await app.showPane('keys');
    await app.table.add(1000);
    await app.scan.start(10);
    await app.scan.step();
    found.push(...await violations(page, 'keys pane'));
    await app.showPane('aof');
    await app.idle();
    found.push(...await violations(page, 'aof pane'));
    await app.showPane('network');
    await app.byId('net.start.go').click();
    await app.idle();
    found.push(...await violations(page, 'network pane'));
    await app.showPane('slabs');
    await app.idle();
    found.push(...await violations(page, 'slabs pane'));
    await app.showPane('inspect');
    await app.byId('inspect.key').fill('a');
    await app.byId('inspect.key').press('Enter');
    await app.idle();
    found.push(...await violations(page, 'key inspector'));

    await app.byId('share.open').click();
    await app.byId('share.link.copy').click();
    await expect(app.byId('share.link.url.status')).toBeVisible();
    found.push(...await violations(page, 'share dialog'));
    await app.byId('share.close').click();

    await app.lesson.open('scan-rehashing');
    found.push(...await violations(page, 'lesson'));
    await app.byId('present.toggle').click();
    await expect(page.locator('html')).toHaveClass(/presenter/);
    found.push(...await violations(page, 'presenter mode'));
    await page.keyboard.press('?');
    await expect(app.byId('keys.dialog')).toBeVisible();
    found.push(...await violations(page, 'shortcuts dialog'));
    await page.keyboard.press('Escape');
    await app.byId('present.toggle').click();

    for (const view of ['loop', 'keys', 'inspect', 'aof', 'slabs']) {
      const context = await browser.newContext({ viewport: { width: 960, height: 640 } });
      const embed = new SandboxPage(await context.newPage());
      await embed.page.goto(`./?embed=1&view=${view}&lang=ko`);
      await embed.waitReady();
      await embed.idle();
      found.push(...await violations(embed.page, `embed ${view}`));
      await context.close();
    }
    expect(found).toEqual([]);
  });

  test('every control shows where the keyboard focus is', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 3, pane: 'keys' });
    const seen = new Set<string>();
    const unmarked: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const info = await page.evaluate(() => {
        const e = document.activeElement as HTMLElement | null;
        if (!e || e === document.body) return null;
        const s = getComputedStyle(e);
        // The console's prompt marks focus on its terminal box (:focus-within).
        const box = e.closest('.terminal');
        const marked = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none'
          || (box !== null && getComputedStyle(box).boxShadow !== 'none');
        return { id: e.dataset.testid ?? `${e.tagName}.${e.className}`, marked };
      });
      if (!info || seen.has(info.id)) continue;
      seen.add(info.id);
      if (!info.marked) unmarked.push(info.id);
    }
    expect(seen.size).toBeGreaterThan(15);
    expect(unmarked).toEqual([]);
  });

  test('the interface speaks the browser\'s language until another is chosen', async ({ browser }) => {
    for (const [locale, lang, play] of [['ko-KR', 'ko', '재생'], ['en-GB', 'en', 'Play'], ['de-DE', 'en', 'Play']]) {
      const context = await browser.newContext({ locale });
      const app = new SandboxPage(await context.newPage());
      await app.page.goto('./?fresh&seed=1');
      await app.waitReady();
      await expect(app.page.locator('html')).toHaveAttribute('lang', lang);
      await expect(app.byId('time.play')).toContainText(play);
      await context.close();
    }
  });
});

test.describe('phone width (390 px)', () => {
  for (const locale of ['en-US', 'ko-KR']) {
    const lang = locale.slice(0, 2);
    test(`the sandbox and a lesson fit without sideways scrolling (${lang})`, async ({ browser, page }) => {
      const app = await phone(browser, locale);
      await app.open({ seed: 5, pane: 'keys' });
      await app.console.run('SET greeting hello');
      await app.table.add(1000);
      await app.scan.start(10);
      await app.scan.step();
      await expectNoSideScroll(app);
      // The panels stack: the console above the hash table, full width.
      const side = (await app.page.locator('.side').boundingBox())!;
      const views = (await app.page.locator('.views').boundingBox())!;
      expect(views.y).toBeGreaterThanOrEqual(side.y + side.height - 1);
      expect(views.width).toBeGreaterThan(330);
      await app.page.screenshot({ path: `test-results/phone-sandbox-${lang}.png`, fullPage: true });
      await app.showPane('loop');
      await app.idle();
      await expectNoSideScroll(app);
      await app.page.screenshot({ path: `test-results/phone-loop-${lang}.png`, fullPage: true });

      await app.lesson.open('scan-rehashing');
      await expectNoSideScroll(app);
      await app.lesson.run('0.3');
      await app.lesson.next();
      await expect(app.lesson.stepOf).toContainText('2');
      await expectNoSideScroll(app);
      await app.page.screenshot({ path: `test-results/phone-lesson-${lang}.png`, fullPage: true });
      expect(app.errors).toEqual([]);
      await app.page.context().close();

      // The same at desktop width, for the record.
      const desk = new SandboxPage(page);
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await desk.open({ seed: 5, pane: 'keys' });
      await page.getByTestId(`lang.${lang}`).click();
      await desk.table.add(1000);
      await desk.screenshot(`desktop-sandbox-${lang}`);
      await desk.lesson.open('scan-rehashing');
      await desk.screenshot(`desktop-lesson-${lang}`);
    });
  }
});
