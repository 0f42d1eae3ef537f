// What the screen shows, measured in the page: glyphs that really render,
// the fonts that draw them, boxes that overlap or leave the viewport, and
// screenshots kept in test-results/screen/ for a person to look at.
import { expect, type Browser, type Page } from '@playwright/test';
import { SandboxPage } from './sandbox';

/** The screen sizes the layout is checked at: a laptop, a classroom
 *  projector, and a phone. */
export const SCREENS = {
  laptop: { width: 1440, height: 900 },
  projector: { width: 1280, height: 720 },
  hd: { width: 1920, height: 1080 },
  phone: { width: 390, height: 844 },
} as const;

export async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: `test-results/screen/${name}.png`, fullPage });
}

/** Characters of `text` that the page draws as the missing-glyph box in
 *  `font` (a CSS font shorthand). Each character is drawn on a canvas and
 *  compared with an unassigned code point, which no font has: the same
 *  pixels mean the browser found no font for it. */
export async function tofuIn(page: Page, text: string, font: string): Promise<string[]> {
  return page.evaluate(([text, font]) => {
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 64;
    const g = canvas.getContext('2d', { willReadFrequently: true })!;
    const draw = (ch: string): string => {
      g.clearRect(0, 0, 64, 64);
      g.fillStyle = '#000';
      g.font = font;
      g.textBaseline = 'middle';
      g.fillText(ch, 4, 32);
      return Array.from(g.getImageData(0, 0, 64, 64).data).join(',');
    };
    const missing = draw('\u0378');
    return [...new Set(text)].filter((ch) => ch.trim() !== '' && draw(ch) === missing);
  }, [text, font] as const);
}

/** The page's font shorthand for an element, at a size large enough to
 *  tell glyphs apart. */
export async function fontOf(page: Page, selector: string): Promise<string> {
  return page.locator(selector).first().evaluate((el) => {
    const s = getComputedStyle(el);
    return `${s.fontWeight} 40px ${s.fontFamily}`;
  });
}

/** Every platform font that draws text of an element holding Hangul,
 *  with the families the element's stylesheet names: Chromium's own record
 *  of which installed font drew the glyphs. */
export async function fontsDrawingHangul(page: Page): Promise<{ text: string; named: string[]; used: string[] }[]> {
  const n = await page.evaluate(() => {
    let i = 0;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode() as HTMLElement | null; el; el = walker.nextNode() as HTMLElement | null) {
      const own = [...el.childNodes].some((c) => c.nodeType === Node.TEXT_NODE && /\p{Script=Hangul}/u.test(c.textContent ?? ''));
      const placeholder = /\p{Script=Hangul}/u.test(el.getAttribute('placeholder') ?? '');
      if ((own || placeholder) && el.getClientRects().length) el.dataset.hangulProbe = String(i++);
    }
    return i;
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
  const out: { text: string; named: string[]; used: string[] }[] = [];
  for (let i = 0; i < n; i++) {
    const sel = `[data-hangul-probe="${i}"]`;
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: sel });
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    // The fonts drawing the element's descendants count too: a <b> or a
    // <code> inside it has its own stack; so does a field's placeholder.
    const { text, families } = await page.locator(sel).evaluate((el) => ({
      text: (el.textContent || el.getAttribute('placeholder') || '').slice(0, 40),
      families: [el, ...el.querySelectorAll('*')].map((e) => getComputedStyle(e).fontFamily)
        .concat(el.hasAttribute('placeholder') ? [getComputedStyle(el, '::placeholder').fontFamily] : []),
    }));
    const named = [...new Set(families.flatMap((f) => f.split(',')))]
      .map((f) => f.trim().replace(/^["']|["']$/g, '').toLowerCase());
    out.push({ text, named, used: fonts.map((f) => f.familyName) });
  }
  await cdp.detach();
  return out;
}

/** Pairs of the given elements whose boxes overlap (by more than a pixel). */
export async function overlaps(page: Page, selectors: string[]): Promise<string[]> {
  const boxes = await Promise.all(selectors.map(async (s) => ({ s, b: await page.locator(s).first().boundingBox() })));
  const hit: string[] = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].b;
      const b = boxes[j].b;
      if (!a || !b) continue;
      const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (w > 1 && h > 1) hit.push(`${boxes[i].s} / ${boxes[j].s}`);
    }
  }
  return hit;
}

/** The element is wholly inside the viewport (and inside every box that
 *  clips it), so a person sees all of it without scrolling. */
export async function expectWhollyVisible(page: Page, selector: string): Promise<void> {
  const r = await page.locator(selector).first().evaluate((el) => {
    const b = el.getBoundingClientRect();
    let top = 0;
    let left = 0;
    let bottom = window.innerHeight;
    let right = window.innerWidth;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
        const c = p.getBoundingClientRect();
        top = Math.max(top, c.top);
        left = Math.max(left, c.left);
        bottom = Math.min(bottom, c.bottom);
        right = Math.min(right, c.right);
      }
    }
    return { b: { top: b.top, left: b.left, bottom: b.bottom, right: b.right }, clip: { top, left, bottom, right } };
  });
  expect(r.b.top, `${selector} top`).toBeGreaterThanOrEqual(r.clip.top - 1);
  expect(r.b.left, `${selector} left`).toBeGreaterThanOrEqual(r.clip.left - 1);
  expect(r.b.bottom, `${selector} bottom`).toBeLessThanOrEqual(r.clip.bottom + 1);
  expect(r.b.right, `${selector} right`).toBeLessThanOrEqual(r.clip.right + 1);
}

/** A phone (390x844, touch, twice the pixels) in its own context. */
export async function phone(browser: Browser, locale = 'en-US'): Promise<SandboxPage> {
  const context = await browser.newContext({
    locale, viewport: SCREENS.phone, deviceScaleFactor: 2, isMobile: true, hasTouch: true, reducedMotion: 'reduce',
  });
  return new SandboxPage(await context.newPage());
}

/** Lets the page finish what a load or a click started: the engine, then
 *  two animation frames (effects that scroll or focus run by then). */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await window.glasskv.idle();
    for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(() => r(null)));
  });
}
