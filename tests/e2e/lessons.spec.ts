import { readdirSync, readFileSync } from 'node:fs';
import { test } from '@playwright/test';
import { parseLesson } from '../../web/src/lessons/parse';
import { actionsAtEntry, actionsBefore, clickBlocks, focusOf } from '../../web/src/lessons/plan';
import type { Lesson } from '../../web/src/lessons/types';
import { SandboxPage, expect } from './pages/sandbox';

const LESSON = 'scan-rehashing';

test.describe('the SCAN lesson', () => {
  test('opens from the lesson list, runs a step from the console, and moves on in place', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 3 });
    const { lesson } = app;
    await lesson.open(LESSON);
    await expect(lesson.stepOf).toHaveText('Step 1 of 7');
    await expect(lesson.title).toHaveText('A walk in slices');
    await expect(lesson.block('0.0')).toHaveAttribute('data-state', 'auto');
    expect(await app.table.keys()).toBe(20);
    await expect(app.table.table(0)).toHaveAttribute('data-size', '32');
    await expect(app.table.table(0)).toHaveAttribute('data-lesson-focus', 'on');
    await expect(lesson.block('0.5').getByTestId('lesson.block.run')).toBeDisabled();
    await app.screenshot('lesson-step-1');

    await lesson.run('0.3');
    await expect(app.console.entries.last()).toContainText('SCAN 0');
    expect(await app.console.lastOutput()).toMatch(/^1\) "\d+"\n2\)\s+1\) "key:\d+"/);
    await lesson.run('0.5');
    expect(await app.console.lastOutput()).toMatch(/^1\) "[1-9]\d*"\n2\) \(empty array\)$/);
    const logged = await app.state((s) => s.log.entries.length);

    await lesson.next();
    await expect(lesson.stepOf).toHaveText('Step 2 of 7');
    expect(await app.state((s) => s.log.entries.length)).toBe(logged);
    expect((await lesson.state()).rebuilt).toBe(false);
    expect(app.errors).toEqual([]);
  });

  test('checks predictions against the engine: a right answer, a wrong one, and trying again from the same state', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    const { lesson } = app;
    await lesson.open(LESSON);
    await lesson.goTo(1);
    await expect(lesson.title).toHaveText('The cursor counts backwards in binary');
    await lesson.run('1.0');
    await expect(app.scan.cursor).toHaveText('0');

    await lesson.answer('1.2', '16');
    await expect(lesson.block('1.2')).toHaveAttribute('data-verdict', 'right');
    await expect(lesson.block('1.2').getByTestId('lesson.predict.result')).toContainText('Right. The engine says 16.');
    await expect(app.byId('scan.calls')).toHaveText('2 calls');

    await lesson.answer('1.3', '12');
    const wrong = lesson.block('1.3');
    await expect(wrong).toHaveAttribute('data-verdict', 'wrong');
    await expect(wrong.getByTestId('lesson.predict.result')).toContainText('you said 12; the engine says 4.');
    await expect(app.byId('scan.calls')).toHaveText('5 calls');
    await app.screenshot('lesson-predict-wrong');

    await wrong.getByTestId('lesson.predict.retry').click();
    await lesson.settled();
    await expect(wrong).toHaveAttribute('data-verdict', 'open');
    await expect(app.byId('scan.calls')).toHaveText('2 calls');
    await expect(lesson.block('1.2')).toHaveAttribute('data-verdict', 'right');
    await lesson.answer('1.3', '4');
    await expect(wrong).toHaveAttribute('data-verdict', 'right');

    await lesson.next();
    await lesson.run('2.0');
    await expect(app.byId('ht.status')).toHaveAttribute('data-rehashing', 'yes');
    const cursor = Number(await app.scan.cursor.textContent());
    await lesson.answer('2.3', String((cursor & 31) + 32));
    await expect(lesson.block('2.3')).toHaveAttribute('data-verdict', 'right');
    await lesson.answer('2.4', 'pass');
    await expect(lesson.block('2.4')).toHaveAttribute('data-verdict', 'right');
    await expect(app.scan.checker).toHaveAttribute('data-verdict', 'pass');
    await app.screenshot('lesson-predict-right');
    expect(app.errors).toEqual([]);
  });

  test('a reload keeps the open lesson, its step, the answers and the world', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    const { lesson } = app;
    await lesson.open(LESSON);
    await lesson.next();
    await lesson.run('1.0');
    await lesson.answer('1.2', '8');
    await expect(lesson.block('1.2')).toHaveAttribute('data-verdict', 'wrong');
    const cursor = await app.scan.cursor.textContent();
    const logged = await app.state((s) => s.log.entries.length);

    await page.reload();
    await app.waitReady();
    await lesson.settled();
    await expect(lesson.panel).toHaveAttribute('data-lesson', LESSON);
    await expect(lesson.stepOf).toHaveText('Step 2 of 7');
    await expect(lesson.block('1.2')).toHaveAttribute('data-verdict', 'wrong');
    await expect(lesson.block('1.2').getByTestId('lesson.predict.result')).toContainText('you said 8; the engine says 16.');
    await expect(lesson.block('1.3')).toHaveAttribute('data-state', 'next');
    await expect(app.scan.cursor).toHaveText(cursor ?? '');
    expect(await app.state((s) => s.log.entries.length)).toBe(logged);
    await lesson.answer('1.3', '4');
    await expect(lesson.block('1.3')).toHaveAttribute('data-verdict', 'right');
    expect(app.errors).toEqual([]);
  });

  test('opening a later step rebuilds it from a clean state: the scenario and the earlier steps', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    const { lesson } = app;
    await lesson.open(LESSON);
    await app.console.run('FLUSHALL');
    await expect(app.byId('lesson.offPlan')).toBeVisible();
    await lesson.goTo(3);
    await expect(lesson.title).toHaveText('Shrinking can return a key twice');
    await expect(lesson.panel).toContainText('the 13 actions of the earlier steps, replayed');
    expect(await app.table.keys()).toBe(40);
    await expect(app.table.table(0)).toHaveAttribute('data-size', '64');
    await expect(app.byId('lesson.offPlan')).toBeHidden();
    await lesson.run('3.2');
    expect(await app.table.keys()).toBe(6);
    await lesson.run('3.4');
    await lesson.run('3.5');
    await expect(app.table.table(0)).toHaveAttribute('data-size', '8');
    const cursor = Number(await app.scan.cursor.textContent());
    await lesson.answer('3.8', String(cursor & 7));
    await expect(lesson.block('3.8')).toHaveAttribute('data-verdict', 'right');
    await lesson.answer('3.9', 'yes');
    await expect(lesson.block('3.9')).toHaveAttribute('data-verdict', 'right');
    await app.screenshot('lesson-shrink');
    expect(app.errors).toEqual([]);
  });

  test('leaving the lesson brings back the sandbox session', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await app.console.run('SET mine sandbox');
    await app.lesson.open(LESSON);
    expect(await app.console.reply('GET mine')).toBe('(nil)');
    await app.byId('lesson.leave').click();
    await app.lesson.settled();
    await expect(app.lesson.panel).toBeHidden();
    expect(await app.console.reply('GET mine')).toBe('"sandbox"');
    await app.byId('lessons.open').click();
    await expect(app.page.locator(`[data-testid="lessons.item"][data-lesson="${LESSON}"]`)).toContainText('Continue at step 1');
    await expect(app.byId('lessons.picker')).toContainText('0 of 7 steps done');
    expect(app.errors).toEqual([]);
  });

  test('a question keeps what follows it hidden until it is answered, and a number question refuses text with a reason', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await page.setViewportSize({ width: 1440, height: 900 });
    const { lesson } = app;
    await lesson.open(LESSON);
    await lesson.goTo(1);
    await lesson.run('1.0');
    // The second question lists the order the first one asks about.
    await expect(lesson.block('1.2')).toHaveAttribute('data-verdict', 'open');
    await expect(lesson.block('1.3')).toHaveCount(0);
    await expect(lesson.panel).not.toContainText('0, 16, 8, 24');
    await expect(app.byId('lesson.gate')).toBeVisible();
    await app.screenshot('labs/lesson-scan-question-gate-en');
    await lesson.answer('1.2', '8');
    await expect(lesson.block('1.2')).toHaveAttribute('data-verdict', 'wrong');
    await expect(lesson.block('1.3')).toBeVisible();
    await expect(lesson.block('1.3')).toContainText('0, 16, 8, 24');

    await lesson.next();
    await lesson.run('2.0');
    const input = lesson.block('2.3').getByTestId('lesson.predict.input');
    const check = lesson.block('2.3').getByTestId('lesson.predict.check');
    await expect(input).toHaveAttribute('data-answer-type', 'number');
    await input.fill('abc');
    await expect(lesson.block('2.3').getByTestId('lesson.predict.invalid'))
      .toHaveText('This question asks for a number: type digits, such as 42.');
    await expect(input).toHaveAttribute('aria-invalid', 'true');
    await expect(check).toBeDisabled();
    await input.press('Enter');
    await lesson.settled();
    await expect(lesson.block('2.3')).toHaveAttribute('data-state', 'next');
    await expect(lesson.block('2.3').getByTestId('lesson.predict.result')).toHaveCount(0);
    await app.screenshot('labs/lesson-scan-number-refused-en');
    await app.byId('lang.ko').click();
    await expect(lesson.block('2.3').getByTestId('lesson.predict.invalid'))
      .toHaveText('이 질문의 답은 숫자입니다. 42처럼 숫자로 입력하세요.');
    await app.screenshot('labs/lesson-scan-number-refused-ko');
    await app.byId('lang.en').click();
    const cursor = Number(await app.scan.cursor.textContent());
    await input.fill(String((cursor & 31) + 32));
    await expect(lesson.block('2.3').getByTestId('lesson.predict.invalid')).toHaveCount(0);
    await expect(check).toBeEnabled();
    await check.click();
    await lesson.settled();
    await expect(lesson.block('2.3')).toHaveAttribute('data-verdict', 'right');
    expect(app.errors).toEqual([]);
  });

  test('the walker shows the COUNT a lesson\'s walk uses, and the keys of the last call apart from the walk\'s total', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    const { lesson } = app;
    await lesson.open(LESSON);
    await lesson.goTo(1);
    await expect(app.byId('scan.count')).toHaveValue('10');
    await lesson.run('1.0');
    await expect(app.byId('scan.count')).toHaveValue('1');
    await lesson.answer('1.2', '16');
    await lesson.answer('1.3', '4');
    const shown = await app.byId('scan.keys').locator('li:not(.dim)').count();
    await expect(app.byId('scan.keys.last')).toHaveText(`${shown} ${shown === 1 ? 'key' : 'keys'} in this call`);
    const distinct = Number((await app.byId('scan.keys.distinct').textContent())!.match(/\d+/)![0]);
    expect(distinct).toBeGreaterThan(shown);
    await app.screenshot('labs/scan-walker-count-and-keys');
    expect(app.errors).toEqual([]);
  });

  test('in Korean, ht[0] and ht[1] are bold and no asterisk reaches the page (a ** before a particle did not close)', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await app.byId('lang.ko').click();
    const { lesson } = app;
    await lesson.open(LESSON);
    for (const [step, table] of [[0, 'ht[0]'], [2, 'ht[1]']] as const) {
      await lesson.goTo(step);
      const body = lesson.panel.locator('.md-h, p, li');
      await expect(lesson.panel.locator('strong', { hasText: table }).first()).toBeVisible();
      const text = (await body.allInnerTexts()).join('\n');
      expect(text).toContain(`${table} 테이블`);
      expect(text).not.toContain('**');
      await app.screenshot(`lesson-ko-scan-step-${step + 1}`);
    }
    expect(app.errors).toEqual([]);
  });

  test('the lesson list and a question work from the keyboard', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    const opener = app.byId('lessons.open');
    await opener.focus();
    await page.keyboard.press('Enter');
    const picker = app.byId('lessons.picker');
    await expect(picker).toBeVisible();
    await expect(picker.getByTestId('lessons.start').first()).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(picker).toBeHidden();
    await expect(opener).toBeFocused();

    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await app.lesson.settled();
    await app.lesson.goTo(1);
    await app.lesson.run('1.0');
    await app.lesson.block('1.2').getByTestId('lesson.predict.choice').first().focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect(app.lesson.block('1.2').locator('input[value="16"]')).toBeChecked();
    await page.keyboard.press('Enter');
    await app.lesson.settled();
    await expect(app.lesson.block('1.2')).toHaveAttribute('data-verdict', 'right');
    expect(app.errors).toEqual([]);
  });

  test('reads in Korean, and fits a 1280x720 projector', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open();
    await app.lesson.open(LESSON);
    await app.byId('lang.ko').click();
    await expect(app.lesson.panel.locator('#lesson-title')).toHaveText('레슨: 테이블이 움직이는 동안의 SCAN');
    await expect(app.lesson.stepOf).toHaveText('7단계 중 1단계');
    await expect(app.lesson.title).toHaveText('조금씩 나눠서 도는 순회');
    await app.lesson.run('0.3');
    await app.screenshot('lesson-korean');
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.lesson.next();
    await app.lesson.run('1.0');
    await app.lesson.answer('1.2', '16');
    await expect(app.lesson.block('1.2').getByTestId('lesson.predict.result')).toContainText('맞았습니다. 엔진의 결과도 16입니다.');
    await app.screenshot('lesson-korean-1280x720');
    await app.byId('lang.en').click();
    await app.screenshot('lesson-1280x720');
    expect(app.errors).toEqual([]);
  });
});

test.describe('the AOF lesson', () => {
  test('a later step is rebuilt across the earlier crashes and restarts, and its own crash loses what the engine says', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 4 });
    const { lesson } = app;
    await lesson.open('aof-fsync');
    // A command of the reader's own takes the world off the plan: the
    // step is rebuilt from a clean world.
    expect(await app.console.reply('PING')).toBe('PONG');
    await lesson.goTo(6);
    await expect(lesson.title).toHaveText('everysec on a slow disk: acknowledged, still in aof_buf');
    await expect(lesson.panel).toContainText('replayed');
    expect((await lesson.state()).rebuilt).toBe(true);
    // Three restarts happened on the way; the last one's report (the power
    // loss 40 s after order:1) lost nothing.
    await expect(app.byId('aof.report')).toContainText('order:1');
    await expect(app.byId('aof.report.row.lost')).toHaveCount(0);
    expect(await app.console.reply('GET order:1')).toBe('"paid"');
    await expect(app.byId('lesson.offPlan')).toBeVisible();
    await lesson.goTo(6);
    for (const key of ['6.0', '6.1', '6.2', '6.3']) await lesson.run(key);
    await expect(app.byId('aof.disk')).toHaveValue('slow-fsync');
    await lesson.answer('6.5', 'aof_buf');
    await expect(lesson.block('6.5')).toHaveAttribute('data-verdict', 'right');
    await expect(app.byId('aof.buf')).toContainText('fsync');
    await lesson.answer('6.7', '1');
    await expect(lesson.block('6.7')).toHaveAttribute('data-verdict', 'right');
    await expect(app.byId('aof.report.row.lost')).toHaveCount(1);
    await expect(app.byId('aof.report.row.lost')).toContainText('job:2');
    await app.screenshot('lesson-aof-fsync-rebuilt-step7');
    expect(app.errors).toEqual([]);
  });

  test('moving on past the blocks of six steps left unrun runs only those, crashes and restarts too, to the state a rebuild gives', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 4 });
    const { lesson } = app;
    await lesson.open('aof-fsync');
    const before = await app.state((s) => s.log.entries.map((e) => JSON.stringify(e)));
    await lesson.goTo(6);
    await expect(lesson.title).toHaveText('everysec on a slow disk: acknowledged, still in aof_buf');
    const caught = await lesson.state();
    expect(caught.rebuilt).toBe(false);
    expect(caught.caughtUp).toBeGreaterThan(0);
    await expect(app.byId('lesson.caughtUp')).toContainText(`run for you (${caught.caughtUp} actions)`);
    await expect(app.byId('lesson.offPlan')).toHaveCount(0);
    // The log kept what it held and grew by the rest of the plan: the
    // skipped actions and the step's own on entry.
    const after = await app.state((s) => s.log.entries.map((e) => JSON.stringify(e)));
    expect(after.slice(0, before.length)).toEqual(before);
    const lessonPlan = lessonsIn('en').find((l) => l.id === 'aof-fsync')!;
    expect(after.length).toBe(actionsAtEntry(lessonPlan, 6).length);
    expect(before.length + caught.caughtUp).toBe(actionsBefore(lessonPlan, 6).length);
    await expect(app.byId('aof.report')).toContainText('order:1');
    await expect(app.byId('aof.report.row.lost')).toHaveCount(0);
    await app.screenshot('lesson-aof-fsync-caught-up-step7');
    const digest = await page.evaluate(() => window.glasskv.digest());
    // Restart step rebuilds the same step from a clean world: the same state.
    await app.byId('lesson.reset').click();
    await lesson.settled();
    expect((await lesson.state()).rebuilt).toBe(true);
    await expect(lesson.panel).toContainText('replayed');
    expect(await app.state((s) => s.log.entries.map((e) => JSON.stringify(e)))).toEqual(after);
    expect(await page.evaluate(() => window.glasskv.digest())).toBe(digest);
    expect(app.errors).toEqual([]);
  });
});

test.describe('the EVAL lesson', () => {
  test('checks a typed byte count against what the server read, shows the script\'s freeze, and reads at 1440x900 and on a phone in both languages', async ({ page }) => {
    test.setTimeout(240_000);
    const app = new SandboxPage(page);
    await app.open({ seed: 6 });
    await page.setViewportSize({ width: 1440, height: 900 });
    const { lesson } = app;
    await lesson.open('eval-scripts');
    await expect(lesson.title).toHaveText('One ZCARD, one round trip');
    await lesson.run('0.0');
    // What the question asks about stays hidden until it is answered.
    await expect(lesson.panel).not.toContainText('25 to 30 bytes');
    await lesson.answer('0.2', '24');
    await expect(lesson.block('0.2').getByTestId('lesson.predict.result')).toContainText('you said 24; the engine says 25.');
    await lesson.block('0.2').getByTestId('lesson.predict.retry').click();
    await lesson.settled();
    await lesson.answer('0.2', '25');
    await expect(lesson.block('0.2')).toHaveAttribute('data-verdict', 'right');
    await expect(lesson.panel).toContainText('25 to 30 bytes');
    expect(await app.console.lastOutput()).toBe('(integer) 1');
    const shot = async (lang: 'en' | 'ko', step: number, at: string) => {
      await lesson.block(at).scrollIntoViewIfNeeded();
      for (const [w, h] of [[1440, 900], [390, 844]] as const) {
        await page.setViewportSize({ width: w, height: h });
        await lesson.block(at).scrollIntoViewIfNeeded();
        await app.screenshot(`shots/lesson-eval-scripts-${lang}-step${step}-${w}x${h}`);
      }
      await page.setViewportSize({ width: 1440, height: 900 });
    };
    await shot('en', 1, '0.2');

    await lesson.goTo(4);
    await expect(lesson.title).toHaveText('The price: the server waits for the script');
    for (const key of ['4.0', '4.1', '4.2']) await lesson.run(key);
    expect(await app.console.lastOutput()).toBe('(integer) 10000000');
    await expect(app.page.locator('[data-testid="wl.row"][data-id="1"]')).toContainText(/max 1\d\d(\.\d+)? ms/);
    await lesson.run('4.5');
    expect(await app.console.lastOutput()).toContain('4) 1) "EVAL"');
    await expect(page.locator('[data-lesson-target="loop.labs"]').first()).toHaveAttribute('data-lesson-focus', 'on');
    await shot('en', 5, '4.5');

    await app.byId('lang.ko').click();
    await expect(lesson.title).toHaveText('대가: 서버는 스크립트를 기다린다');
    await shot('ko', 5, '4.5');
    await lesson.goTo(0);
    await lesson.run('0.0');
    await lesson.answer('0.2', '25');
    await expect(lesson.block('0.2').getByTestId('lesson.predict.result')).toContainText('맞았습니다. 엔진의 결과도 25입니다.');
    await shot('ko', 1, '0.2');
    expect(app.errors).toEqual([]);
  });
});

test.describe('the slow-command lesson', () => {
  test('KEYS * freezes one iteration for over a third of a second, every client waits it out, and the slow log has it', async ({ page }) => {
    test.setTimeout(180_000);
    const app = new SandboxPage(page);
    await app.open({ seed: 6 });
    await page.setViewportSize({ width: 1440, height: 900 });
    const { lesson } = app;
    await lesson.open('slow-command');
    await expect(lesson.title).toHaveText('A million keys, fifty clients');
    for (const key of ['0.0', '0.2']) await lesson.run(key);
    const row = app.page.locator('[data-testid="wl.row"][data-id="1"]');
    await expect(row).toContainText(/max 1\.\d+ ms/);
    await lesson.next();
    await expect(lesson.title).toHaveText('KEYS * holds every client');
    await lesson.run('1.0');
    await lesson.run('1.1');
    expect(await app.console.lastOutput()).toMatch(/^ +1\) "key:\d+"/);
    await expect(row).toContainText(/max 36\d ms/);
    // The iteration that ran KEYS spans the whole 0.36 s after
    // the console sent it: one item on the server's lane.
    const sent = await page.evaluate(() => window.glasskv.state().log.entries
      .find((e) => e.action.kind === 'console' && e.action.text === 'KEYS *')!.t);
    const frozen = await page.evaluate(async ([a, b]) => {
      const r = await window.glasskv.timeline(a, b, 2048, [0]);
      if (r.mode !== 'items') return null;
      const l = r.items[0];
      const out: number[] = [];
      for (let i = 0; i < l.count; i++) if (l.kind[i] === 0 && l.t0[i] <= a && l.t1[i] >= b) out.push(l.t1[i] - l.t0[i]);
      return out;
    }, [sent + 50e6, sent + 340e6]);
    expect(frozen).toHaveLength(1);
    expect(frozen![0] / 1e6).toBeGreaterThan(355);
    expect(frozen![0] / 1e6).toBeLessThan(375);
    await app.byId('loop.fit').click();
    await expect(page.locator('[data-lesson-target="loop.timeline"]').first()).toHaveAttribute('data-lesson-focus', 'on');
    await lesson.run('1.4');
    await lesson.answer('1.6', '1');
    await expect(lesson.block('1.6')).toHaveAttribute('data-verdict', 'wrong');
    await expect(lesson.block('1.6').getByTestId('lesson.predict.result')).toContainText('the engine says 2');
    await lesson.run('1.7');
    const entry = await app.console.lastOutput();
    expect(entry).toContain('4) 1) "KEYS"');
    expect(entry).toMatch(/3\) \(integer\) 36\d{4}\n/);
    await app.screenshot('slow-command/e2e-keys-1440x900-en');
    await page.locator('.loop-timeline').screenshot({ path: 'test-results/slow-command/e2e-keys-timeline-en.png' });

    // The SCAN step links to the SCAN lesson, which opens in place; the
    // slow-command lesson keeps its step.
    await lesson.next();
    await expect(lesson.title).toHaveText('SCAN: the same walk, a thousand keys at a time');
    for (const key of ['2.0', '2.1']) await lesson.run(key);
    await lesson.answer('2.2', '1000');
    await expect(lesson.block('2.2')).toHaveAttribute('data-verdict', 'right');
    await lesson.run('2.5');
    expect(await app.console.lastOutput()).toBe('(integer) 2');
    await page.locator('[data-lesson-link="scan-rehashing"]').click();
    await expect(lesson.panel).toHaveAttribute('data-lesson', 'scan-rehashing');
    await lesson.settled();
    await app.byId('lessons.open').click();
    await expect(page.locator('[data-testid="lessons.item"][data-lesson="slow-command"]')).toContainText('Continue at step 3');
    expect(app.errors).toEqual([]);
  });
});

const TUTORIALS = new URL('../../tutorials/', import.meta.url).pathname;

function lessonsIn(lang: 'en' | 'ko'): Lesson[] {
  return readdirSync(`${TUTORIALS}${lang}`).filter((f) => f.endsWith('.md')).sort()
    .map((f) => parseLesson(readFileSync(`${TUTORIALS}${lang}/${f}`, 'utf8'), `tutorials/${lang}/${f}`));
}

test.describe('the AOF lesson', () => {
  test('a step points at the crash report only once its own crash has run, not at the report of the step before', async ({ page }) => {
    const app = new SandboxPage(page);
    await page.goto('./?fresh&seed=7&lesson=aof-fsync');
    await app.waitReady();
    await app.lesson.settled();
    const lesson = lessonsIn('en').find((l) => l.id === 'aof-fsync')!;
    const k = lesson.steps.findIndex((s) => s.title.startsWith('Power loss'));
    await app.lesson.goTo(k);
    await expect(app.lesson.title).toHaveText('Power loss: only the device survives');
    // The kill -9 report of the step before is still in the pane, not pointed at.
    const report = page.locator('[data-lesson-target="aof.report"]');
    await expect(report).toBeVisible();
    await expect(app.byId('aof.report.explain')).toContainText('kill -9');
    await expect(report).not.toHaveAttribute('data-lesson-focus', 'on');
    await app.screenshot('lesson-aof-power-loss-before');
    const [write, predict] = clickBlocks(lesson.steps[k]);
    await app.lesson.run(write.key);
    await expect(report).not.toHaveAttribute('data-lesson-focus', 'on');
    // The step's own crash: now the report is its result, and pointed at.
    await app.lesson.answer(predict.key, 'cart:1, cart:2, cart:3');
    await expect(app.lesson.block(predict.key)).toHaveAttribute('data-verdict', 'right');
    await expect(report).toHaveAttribute('data-lesson-focus', 'on');
    await expect(app.byId('aof.report.explain')).toContainText('appendfsync everysec');
    await app.screenshot('lesson-aof-power-loss-after');
    expect(app.errors).toEqual([]);
  });
});

/** Lessons whose every step is kept as a screenshot for review. */
const SHOWN = new Set(['aof-fsync', 'redis-threads', 'rtt-and-flushing', 'memcached-slabs', 'slow-command']);

test.describe('every lesson, start to end', () => {
  for (const lang of ['en', 'ko'] as const) {
    for (const lesson of lessonsIn(lang)) {
      test(`${lang}/${lesson.id} runs every block, answers every question and moves on in place`, async ({ page }) => {
        test.setTimeout(300_000);
        const app = new SandboxPage(page);
        await app.open({ seed: 5 });
        if (lang === 'ko') await app.byId('lang.ko').click();
        const pane = app.lesson;
        await pane.open(lesson.id);
        await expect(pane.panel.locator('#lesson-title')).toContainText(lesson.title);
        for (const step of lesson.steps) {
          await expect(pane.title).toHaveText(step.title);
          for (const block of clickBlocks(step)) {
            if (block.type !== 'predict') {
              await pane.run(block.key);
            } else {
              // The first offered answer (or 0), then, if the engine said
              // otherwise, Try again from the same state with its answer.
              const first = block.choices ? block.choices[0].value : '0';
              await pane.answer(block.key, first);
              const given = (await pane.state()).active!.answers[block.key];
              if (block.choices) expect(block.choices.map((c) => c.value.toLowerCase())).toContain(given.actual.toLowerCase());
              await expect(pane.block(block.key)).toHaveAttribute('data-verdict', given.correct ? 'right' : 'wrong');
              if (!given.correct) {
                await pane.block(block.key).getByTestId('lesson.predict.retry').click();
                await pane.settled();
                await pane.answer(block.key, given.actual);
                await expect(pane.block(block.key)).toHaveAttribute('data-verdict', 'right');
              }
            }
            expect((await pane.state()).error).toBeNull();
          }
          for (const target of focusOf(step)) {
            await expect(page.locator(`[data-lesson-target="${target}"]`).first()).toHaveAttribute('data-lesson-focus', 'on');
          }
          if (SHOWN.has(lesson.id)) await app.screenshot(`lesson-${lesson.id}-${lang}-step${step.index + 1}`);
          if (step.index + 1 < lesson.steps.length) {
            await pane.next();
            expect((await pane.state()).rebuilt).toBe(false);
          } else {
            await app.byId('lesson.finish').click();
            await expect(app.byId('lesson.finished')).toBeVisible();
          }
        }
        expect(app.errors).toEqual([]);
      });
    }
  }
});
