import { test } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';

const EVAL = 'EVAL "while true do end" 0';

test.describe('the console while a script is busy', () => {
  for (const lang of ['en', 'ko'] as const) {
    test(`sends what the reader types on a second connection, where SCRIPT KILL stops the script (${lang})`, async ({ page }) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      const app = new SandboxPage(page);
      await page.goto(`./?fresh&seed=21&lang=${lang}`);
      await app.waitReady();
      await app.showPane('loop');
      // The page shares memory with its worker: it is cross-origin isolated.
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      expect(await app.console.reply('CONFIG SET busy-reply-threshold 500')).toBe('OK');

      await app.console.input.fill(EVAL);
      await app.console.input.press('Enter');
      const banner = app.byId('console.blocked');
      await expect(banner).toBeVisible();
      await expect(app.byId('console.secondBadge')).toBeVisible();
      // The command waits in the transcript for its script.
      await expect(app.byId('console.waiting')).toContainText(EVAL);
      await app.console.input.fill('PING');
      await app.console.input.press('Enter');
      const entries = app.console.entries;
      await expect(entries.last()).toContainText('(error) BUSY Redis is busy running a script.');
      // Still busy, a second later: the script keeps running until killed.
      await page.waitForTimeout(1000);
      await expect(banner).toBeVisible();
      await app.screenshot(`second-connection-busy-${lang}`);

      await app.console.input.fill('SCRIPT KILL');
      await app.console.input.press('Enter');
      await expect(banner).toBeHidden();
      await app.idle();
      await expect(app.byId('console.secondBadge')).toBeHidden();
      await expect(app.byId('console.waiting')).toBeHidden();
      const said = async () => (await entries.allTextContents()).slice(-3);
      const expected = [
        expect.stringContaining('PING(error) BUSY'),
        expect.stringContaining('SCRIPT KILLOK'),
        expect.stringMatching(/EVAL "while true do end" 0\(error\) ERR Script killed by user with SCRIPT KILL\.\.\./),
      ];
      expect(await said()).toEqual(expected);
      await app.screenshot(`second-connection-killed-${lang}`);
      // The console is itself again: a command runs on its own connection.
      expect(await app.console.reply('PING')).toBe('PONG');
      // Up walks back through the lines typed on the second connection too.
      await app.console.input.press('ArrowUp');
      await app.console.input.press('ArrowUp');
      await expect(app.console.input).toHaveValue('SCRIPT KILL');
      await app.console.input.fill('');

      // A reload replays the log: the same transcript, with nothing to type.
      await page.reload();
      await app.waitReady();
      await expect(entries.last()).toContainText('PONG');
      const replayed = (await entries.allTextContents()).slice(-4, -1);
      expect(replayed).toEqual(expected);
      expect(app.errors).toEqual([]);
    });
  }

  test('a monitor sending SCRIPT KILL, started from the Run panel, is named by what it sends and stops the script', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 22, pane: 'loop' });
    expect(await app.console.reply('CONFIG SET busy-reply-threshold 300')).toBe('OK');
    await app.byId('run.tab.monitor').click();
    // The chosen tab looks chosen.
    const bg = (id: string) => app.byId(id).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await bg('run.tab.monitor')).not.toBe(await bg('run.tab.benchmark'));
    await app.byId('wl.command').selectOption('SCRIPT KILL');
    await app.byId('wl.start').click();
    await app.idle();
    await expect(app.byId('wl.row')).toHaveCount(1);
    await expect(app.byId('wl.row')).toContainText('SCRIPT KILL monitor');
    await expect(app.byId('wl.row')).not.toContainText('INFO monitor');
    await app.console.run(EVAL);
    expect(await app.console.lastOutput()).toMatch(/^\(error\) ERR Script killed by user with SCRIPT KILL\.\.\./);
    expect(app.errors).toEqual([]);
  });
});
