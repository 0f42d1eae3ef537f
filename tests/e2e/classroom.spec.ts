// A lesson in a classroom: a teacher at a 1280x720 projector, a student on
// a 390x844 phone. Long lines stay in their boxes, Previous/Next are on a
// phone's first screen, the console beside a presented lesson holds several
// lines, and the view a step talks about is the one in sight (that a
// question takes little room is measured in screen.spec.ts, on its walk
// through every step). Everything is measured in the page; screenshots go to
// test-results/classroom/.
import { test, type Page } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';
import { SCREENS, expectWhollyVisible, overlaps, phone, settle } from './pages/screen';

const EVAL = 'eval-scripts';

async function shot(page: Page, name: string): Promise<void> {
  await settle(page);
  await page.screenshot({ path: `test-results/classroom/${name}.png` });
}

async function openLesson(app: SandboxPage, id: string, lang: 'en' | 'ko'): Promise<void> {
  await app.page.goto(`./?fresh&seed=4&lang=${lang}&lesson=${id}`);
  await app.waitReady();
  await expect(app.lesson.panel).toHaveAttribute('data-lesson', id);
  await app.lesson.settled();
  await settle(app.page);
}

/** Boxes that hold more than they show sideways (and do not scroll it
 *  into sight with a visible way to), and whether the lesson's text is
 *  wider than its column. */
function sideOverflow(page: Page) {
  return page.evaluate(() => {
    const body = document.querySelector('.lesson-body')!;
    const b = body.getBoundingClientRect();
    const pres = [...document.querySelectorAll<HTMLElement>('.lesson-step pre')].map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent!.slice(0, 20), hidden: e.scrollWidth - e.clientWidth, right: r.right - b.right };
    });
    return { pres, body: body.scrollWidth - body.clientWidth };
  });
}

test.describe('the EVAL lesson\'s first step', () => {
  for (const [size, viewport] of [['1280x720', SCREENS.projector], ['390x844', SCREENS.phone]] as const) {
    for (const lang of ['en', 'ko'] as const) {
      test(`at ${size} (${lang}) the RESP bytes wrap inside their box and never widen the lesson`, async ({ page }) => {
        const app = new SandboxPage(page);
        await page.setViewportSize(viewport);
        await openLesson(app, EVAL, lang);
        const resp = page.locator('.lesson-step pre', { hasText: '*4\\r\\n$4\\r\\nZADD' });
        await expect(resp).toBeVisible();
        const { pres, body } = await sideOverflow(page);
        expect(pres.length).toBeGreaterThan(0);
        for (const p of pres) {
          expect(p.hidden, `${p.text}: width it hides`).toBeLessThanOrEqual(1);
          expect(p.right, `${p.text}: past the lesson's right edge`).toBeLessThanOrEqual(1);
        }
        expect(body).toBeLessThanOrEqual(0);
        // Wrapped, the 41 bytes are all there, on more than one line.
        const lines = await resp.evaluate((e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight));
        expect(lines).toBeGreaterThan(1.5);
        await app.expectNoSideScroll();
        await shot(page, `eval-resp-${size}-${lang}`);
        expect(app.errors).toEqual([]);
      });
    }
  }
});

test.describe('a phone (390x844) in lesson mode', () => {
  for (const lang of ['en', 'ko'] as const) {
    for (const id of [EVAL, 'scan-rehashing']) {
      test(`shows Previous and Next on the first screen, over none of the lesson's text (${id}, ${lang})`, async ({ browser }) => {
        const app = await phone(browser, lang === 'ko' ? 'ko-KR' : 'en-US');
        await openLesson(app, id, lang);
        const { page } = app;
        expect(await page.evaluate(() => window.scrollY)).toBe(0);
        for (const sel of ['[data-testid="lesson.prev"]', '[data-testid="lesson.next"]', '[data-testid="lesson.stepOf"]']) {
          await expectWhollyVisible(page, sel);
        }
        expect(await overlaps(page, ['.lesson-body', '[data-testid="lesson.next"]'])).toEqual([]);
        expect(await overlaps(page, ['.lesson-body', '[data-testid="lesson.prev"]'])).toEqual([]);
        // The lesson keeps most of the screen for its text.
        const text = await page.locator('.lesson-body').evaluate((e) => e.getBoundingClientRect().height);
        expect(text).toBeGreaterThan(SCREENS.phone.height * 0.4);
        // Further down the page, the controls are where they were on the
        // lesson's panel, and Next works.
        await app.byId('lesson.next').click();
        await app.lesson.settled();
        await expect(app.lesson.stepOf).toContainText('2');
        await shot(page, `phone-lesson-${id}-${lang}`);
        expect(app.errors).toEqual([]);
        await page.context().close();
      });
    }
  }
});

test.describe('presenter mode at 1280x720', () => {
  for (const lang of ['en', 'ko'] as const) {
    test(`gives the console at least four lines of legible type beside the lesson (${lang})`, async ({ page }) => {
      const app = new SandboxPage(page);
      await page.setViewportSize(SCREENS.projector);
      await openLesson(app, EVAL, lang);
      await app.byId('present.toggle').click();
      await expect(page.locator('html')).toHaveClass(/presenter/);
      await app.lesson.run('0.0');
      await settle(page);
      const t = await app.byId('console.transcript').evaluate((e) => {
        const s = getComputedStyle(e);
        const inner = e.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
        return { lines: inner / parseFloat(s.lineHeight), px: parseFloat(s.fontSize) };
      });
      expect(t.lines).toBeGreaterThanOrEqual(4);
      expect(t.px).toBeGreaterThanOrEqual(18);
      // The lesson keeps its text and its step controls.
      const body = await page.locator('.lesson-body').evaluate((e) => ({
        h: e.clientHeight, line: parseFloat(getComputedStyle(e.querySelector('.lesson-step p')!).lineHeight),
      }));
      expect(body.h / body.line).toBeGreaterThanOrEqual(6);
      for (const id of ['lesson.prev', 'lesson.next', 'console.input', 'console.transcript']) {
        await expectWhollyVisible(page, `[data-testid="${id}"]`);
      }
      expect(await overlaps(page, ['.app > .header', '[data-testid="lesson.panel"]', '.side > .console', '.views'])).toEqual([]);
      await shot(page, `presenter-console-${lang}`);
      expect(app.errors).toEqual([]);
    });
  }
});

/** Where the element a lesson points at as `name` is, against the views
 *  column's box: the part of it in sight, in pixels. */
function inSight(page: Page, name: string): Promise<number> {
  return page.evaluate((name) => {
    const el = document.querySelector(`[data-lesson-target="${name}"]`);
    const views = document.querySelector('.views');
    if (!el || !views) return 0;
    const r = el.getBoundingClientRect();
    const v = views.getBoundingClientRect();
    return Math.max(0, Math.min(r.bottom, v.bottom) - Math.max(r.top, v.top));
  }, name);
}

test.describe('the EVAL lesson points at what it talks about', () => {
  for (const lang of ['en', 'ko'] as const) {
    test(`its fifth step shows the monitor and its latency, then the Labs once the text turns to them (${lang})`, async ({ page }) => {
      const app = new SandboxPage(page);
      await page.setViewportSize(SCREENS.projector);
      await openLesson(app, EVAL, lang);
      await app.lesson.goTo(4);
      const { lesson } = app;
      await lesson.run('4.0');
      await lesson.run('4.1');
      await lesson.run('4.2');
      await expect.poll(() => inSight(page, 'loop.clients')).toBeGreaterThan(100);
      // Another tab of the Run panel picked meanwhile: the step still shows
      // the Labs it talks about.
      await app.byId('run.tab.benchmark').click();
      await lesson.run('4.5');
      await expect(page.locator('[data-lesson-target="loop.labs"]')).toHaveAttribute('data-lesson-focus', 'on');
      await expect.poll(() => inSight(page, 'loop.labs')).toBeGreaterThan(100);
      // The lab the text names is in sight, not only the panel's top.
      await expectWhollyVisible(page, '[data-testid="lab.eval-vs-zcard"]');
      await shot(page, `eval-labs-${lang}`);
      expect(app.errors).toEqual([]);
    });
  }
});
