// The page runs under its Content-Security-Policy without breaking it:
// every part of the app is visited and no violation may be reported, by
// the page's securitypolicyviolation events or by the console of the page
// and of its workers.
import type { ConsoleMessage, Page } from '@playwright/test';
import { test } from '@playwright/test';
import { CONTENT_SECURITY_POLICY } from '../../vite.config';
import { SandboxPage, expect } from './pages/sandbox';

declare global {
  interface Window {
    cspViolations?: string[];
  }
}

/** Collects every violation the page, its workers and its later loads
 *  report. */
function watchViolations(page: Page): string[] {
  const seen: string[] = [];
  const fromConsole = (where: string) => (m: ConsoleMessage) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(m.text())) seen.push(`${where}: ${m.text()}`);
  };
  page.on('console', fromConsole('console'));
  page.on('worker', (w) => w.on('console', fromConsole(`worker ${w.url()}`)));
  page.on('pageerror', (e) => {
    if (/Content Security Policy/i.test(e.message)) seen.push(`error: ${e.message}`);
  });
  void page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.cspViolations!.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  return seen;
}

async function eventsSeen(page: Page): Promise<string[]> {
  return page.evaluate(() => window.cspViolations ?? []);
}

test.describe('the content security policy', () => {
  test('is sent with the page and written into it, and the whole app runs under it without one violation', async ({ page }) => {
    const seen = watchViolations(page);
    const app = new SandboxPage(page);
    const response = await page.goto('./?fresh&seed=3');
    expect(response!.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute('content', CONTENT_SECURITY_POLICY);
    expect(await page.locator('script:not([src])').count()).toBe(0);
    await app.waitReady();
    const found: string[] = [];
    const check = async (where: string) => {
      await app.idle();
      for (const v of await eventsSeen(page)) found.push(`${where}: ${v}`);
    };

    await app.console.run('SET a 1\nGET a');
    await expect(app.console.entries).toHaveCount(2);
    await check('console');
    // A skiplist, which the key inspector draws on a grid placed by style.
    await app.console.run('CONFIG SET zset-max-listpack-entries 1\nZADD z 1 a 2 b 3 c');
    for (const pane of ['loop', 'keys', 'inspect', 'aof', 'slabs'] as const) {
      await app.showPane(pane);
      await expect(app.byId(`views.tab.${pane}`)).toHaveAttribute('aria-selected', 'true');
      if (pane === 'inspect') {
        await app.byId('inspect.key').fill('z');
        await app.byId('inspect.key').press('Enter');
        await expect(app.byId('inspect.sl')).toBeVisible();
      }
      await app.byId('time.step').click();
      await check(`pane ${pane}`);
    }
    await app.byId('share.open').click();
    await expect(app.byId('share.dialog')).toBeVisible();
    await app.byId('share.close').click();
    await check('share dialog');
    await app.lesson.open('scan-rehashing');
    await check('lesson');

    // The offline worker controls the page once it is reloaded.
    await page.reload();
    await app.waitReady();
    await check('reload');
    for (const view of ['loop', 'keys', 'inspect', 'aof', 'slabs']) {
      const embed = await page.goto(`./?embed=1&view=${view}&lang=ko`);
      expect(embed!.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      await app.waitReady();
      await check(`embed ${view}`);
    }
    expect(found).toEqual([]);
    expect(seen).toEqual([]);

    // The watch itself works: an inline script added now is refused, and
    // reported both ways (once per policy: the header's and the page's).
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.name = "inline ran"';
      document.head.append(s);
    });
    await expect.poll(async () => (await eventsSeen(page)).length).toBeGreaterThan(0);
    for (const v of await eventsSeen(page)) expect(v).toMatch(/^script-src-elem blocked inline/);
    expect(await page.evaluate(() => window.name)).not.toBe('inline ran');
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    for (const v of seen) expect(v).toMatch(/inline script/);
  });
});
