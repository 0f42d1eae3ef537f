// Rewinding never loses what the reader did: an action in the past sets
// the future it cuts aside, one control brings it back, and the console
// transcript always agrees with the engine.
import { test } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';

/** Steps `n` events with the header's button. */
async function step(app: SandboxPage, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await app.byId('time.step').click();
    await app.idle();
  }
}

/** Clicks the history scrubber at `fraction` of its width. */
async function rewindTo(app: SandboxPage, fraction: number): Promise<void> {
  const box = (await app.byId('history.scrub').boundingBox())!;
  await app.page.mouse.click(box.x + box.width * fraction, box.y + box.height / 2);
  await app.idle();
  await expect(app.byId('history')).toHaveAttribute('data-at-end', 'no');
}

test.describe('the recorded history', () => {
  test('a command typed before a rewind survives a step in the past, restorable, and the transcript agrees with EXISTS', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 11 });
    await step(app, 3);
    await app.console.run('SET b 2');
    await step(app, 3);
    const typedAt = await app.state((s) => s.log.entries.find((e) => e.action.kind === 'console')!.t);
    const end = await app.state((s) => s.snapshot!.history.end);
    expect(typedAt).toBeGreaterThan(end * 0.3);
    const transcript = app.byId('console.transcript');
    const setB = app.console.entries.filter({ hasText: 'SET b 2' });

    // Rewound before the command: the transcript shows it as the recorded
    // future, not as done.
    await rewindTo(app, 0.15);
    await expect(setB).toHaveAttribute('data-future', 'yes');
    await expect(app.byId('console.future')).toBeVisible();

    // One event stepped in the past forks the log: the command leaves the
    // transcript with the world, and is kept aside to be restored.
    await app.byId('time.step').click();
    await app.idle();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'yes');
    const restore = app.byId('history.restore');
    await expect(restore).toBeVisible();
    // SET b 2 and the three steps after it at least, with what they ran.
    const aside = (await app.state((s) => s.snapshot!.history.aside))!;
    expect(aside.actions).toBeGreaterThanOrEqual(4);
    expect(aside.typed).toBe(1);
    await expect(restore).toHaveText(new RegExp(`^Restore the future you left \\(${aside.actions} actions, [\\d.]+ m?s\\)$`));
    await expect(setB).toHaveCount(0);
    // The console says where the typed command went.
    await expect(app.byId('console.aside')).toContainText('with the command typed in it');
    expect(await app.console.reply('EXISTS b')).toBe('(integer) 0');
    await expect(transcript).not.toContainText('SET b 2');
    await app.screenshot('history-restore-en-1600');

    // Restored with the keyboard: back at the moment of the fork, with the
    // command in the recorded future; the branch's EXISTS b is set aside.
    await restore.focus();
    await page.keyboard.press('Enter');
    await app.idle();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'no');
    await expect(setB).toHaveAttribute('data-future', 'yes');
    await expect(transcript).not.toContainText('EXISTS b');
    await expect(restore).toHaveText(/^Restore the future you left \(2 actions/);
    await app.byId('history.end').click();
    await app.idle();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'yes');
    await expect(setB).toHaveCount(1);
    await expect(setB).not.toHaveAttribute('data-future', 'yes');
    await expect(app.byId('console.future')).toHaveCount(0);
    expect(await app.console.reply('EXISTS b')).toBe('(integer) 1');

    // U swaps the branches back: the world where b was never set.
    await app.console.input.blur();
    await page.keyboard.press('u');
    await app.idle();
    await expect(setB).toHaveCount(0);
    await app.byId('history.end').click();
    await app.idle();
    await expect(transcript).toContainText('EXISTS b');
    await expect(transcript).not.toContainText('SET b 2');
    expect(await app.console.reply('EXISTS b')).toBe('(integer) 0');

    // The restored log is the one saved: a reload replays it, and the
    // future set aside is still there to restore, its transcript with it.
    await page.reload();
    await app.waitReady();
    expect(await app.console.reply('EXISTS b')).toBe('(integer) 0');
    await expect(app.byId('history.restore')).toBeVisible();
    await app.byId('console.restore').click();
    await app.idle();
    await expect(setB).toHaveAttribute('data-future', 'yes');
    await app.byId('history.end').click();
    await app.idle();
    await expect(setB.getByTestId('console.output')).toHaveText('OK');
    // Its transcript is its own: the EXISTS b typed in it said 1, and the
    // other branch's answers of 0 are not in it.
    await expect(transcript).toContainText('EXISTS b(integer) 1');
    await expect(transcript).not.toContainText('(integer) 0');
    expect(await app.console.reply('EXISTS b')).toBe('(integer) 1');
    expect(app.errors).toEqual([]);
  });

  for (const [lang, w, h] of [['en', 1280, 720], ['ko', 1440, 900], ['en', 1440, 900], ['ko', 1280, 720]] as const) {
    test(`the header says what the history holds in whole words at ${w}x${h} in ${lang}`, async ({ page }) => {
      await page.setViewportSize({ width: w, height: h });
      const app = new SandboxPage(page);
      await page.goto(`./?fresh&seed=11&lang=${lang}`);
      await app.waitReady();
      await app.byId(`lang.${lang}`).click();
      await step(app, 2);
      const text = app.byId('history.text');
      await expect(text).toContainText(lang === 'en' ? 'recorded' : '스냅숏');
      // Korean says "history" once: the label, not again in the text.
      if (lang === 'ko') expect((await text.textContent())!.match(/기록/g)).toHaveLength(1);
      // No part is cut: each fits in the bar, and the text is legible.
      const parts = await text.evaluate((e) => {
        const box = e.getBoundingClientRect();
        return [...e.children].map((c) => {
          const r = c.getBoundingClientRect();
          return { cut: c.scrollWidth > c.clientWidth + 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1, text: c.textContent };
        });
      });
      expect(parts.filter((p) => p.cut)).toEqual([]);
      expect(await text.evaluate((e) => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight)).toBe(true);
      expect(await text.evaluate((e) => parseFloat(getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(14);
      await app.byId('history').screenshot({ path: `test-results/history-text-${lang}-${w}x${h}.png` });
    });
  }

  for (const lang of ['en', 'ko'] as const) {
    for (const [w, h] of [[1440, 900], [390, 844]] as const) {
      test(`the restore control reads well at ${w}x${h} in ${lang}`, async ({ page }) => {
        await page.setViewportSize({ width: w, height: h });
        const app = new SandboxPage(page);
        await page.goto(`./?fresh&seed=11&lang=${lang}`);
        await app.waitReady();
        await app.byId(`lang.${lang}`).click();
        await step(app, 2);
        await app.console.run('SET b 2');
        await step(app, 2);
        await rewindTo(app, 0.2);
        await page.screenshot({ path: `test-results/history-rewound-${lang}-${w}x${h}.png` });
        await app.byId('time.step').click();
        await app.idle();
        await expect(app.byId('history.restore')).toBeVisible();
        await page.screenshot({ path: `test-results/history-restore-${lang}-${w}x${h}.png` });
      });
    }
  }
});
