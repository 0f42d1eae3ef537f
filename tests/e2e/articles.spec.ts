// The lessons checked against the articles they follow (shared seeds):
// each corrected passage is shown in the step that holds it, in English
// and in Korean, at 1440x900, and kept as a screenshot in
// test-results/labs/ for a person to look at.
import { readFileSync } from 'node:fs';
import { test } from '@playwright/test';
import { parseLesson } from '../../web/src/lessons/parse';
import { clickBlocks } from '../../web/src/lessons/plan';
import type { Lesson } from '../../web/src/lessons/types';
import { SandboxPage, expect } from './pages/sandbox';

const TUTORIALS = new URL('../../tutorials/', import.meta.url).pathname;

function lesson(lang: 'en' | 'ko', id: string): Lesson {
  return parseLesson(readFileSync(`${TUTORIALS}${lang}/${id}.md`, 'utf8'), `tutorials/${lang}/${id}.md`);
}

interface Passage {
  id: string;
  /** The step (from 0) that holds it. */
  step: number;
  /** Whether the step's blocks must run first (the passage follows a
   *  question, and stays hidden until it is answered). */
  run: boolean;
  says: Record<'en' | 'ko', string[]>;
  /** What it must no longer say. */
  not?: Record<'en' | 'ko', string[]>;
}

const PASSAGES: Passage[] = [
  {
    id: 'pipelining', step: 0, run: false,
    says: { en: ['no code in the server handles a pipeline', 'matches 19 files'],
      ko: ['서버에는 파이프라인을 다루는 코드가 없습니다', '파일 19개에 걸립니다'] },
    not: { en: ['nowhere in the server'], ko: ['서버 어디에도 없습니다'] },
  },
  {
    id: 'pipelining', step: 1, run: true,
    says: { en: ['are not the post', "redis-benchmark's 50 clients get about 50k"],
      ko: ['글의 수치와 다르지만', '첫 번째 실행은 55k에 못 미칩니다'] },
  },
  {
    id: 'rtt-and-flushing', step: 2, run: true,
    says: { en: ['its commands are pipelined already', 'They win on system calls and packets', 'otherwise idle simulated loopback'],
      ko: ['명령은 이미 파이프라인으로', '묶음이 이기는 것은 시스템 콜과 패킷입니다', '한가한 시뮬레이션 루프백'] },
  },
  {
    id: 'aof-fsync', step: 7, run: true,
    says: { en: ["up to about two fsyncs' time", 'more than two seconds before the'],
      ko: ['fsync 두 번 가까운 시간이', '2초도 더 전에 OK를 받았습니다'] },
  },
  {
    id: 'aof-fsync', step: 8, run: false,
    says: { en: ["if an fsync takes longer than a second, up to about two fsyncs' time"],
      ko: ['fsync가 1초보다 오래 걸리면 fsync 두 번 가까운 시간까지'] },
    not: { en: ['the last second or two'], ko: ['마지막 1~2초'] },
  },
  {
    id: 'aof-fsync', step: 1, run: true,
    says: { en: ['Both are marked durable'], ko: ['둘 다 영속됨으로 표시됩니다'] },
    not: { en: [], ko: ['durable로'] },
  },
  {
    id: 'scan-rehashing', step: 4, run: false,
    says: { en: ['replaced the ziplist with the listpack'], ko: ['ziplist를 listpack으로 바꿨습니다'] },
  },
  {
    id: 'memcached-slabs', step: 4, run: true,
    says: { en: ['slab_automove=0,no_lru_maintainer', 'slabs_moved 0'],
      ko: ['slab_automove=0,no_lru_maintainer', 'slabs_moved'] },
    not: { en: ['the engine leaves it out'], ko: ['엔진은 이를 빼 두었고'] },
  },
];

/** Runs the step's blocks in order, answering each question as the engine
 *  answers it (a first guess, then Try again with the engine's value). */
async function runStep(app: SandboxPage, l: Lesson, step: number): Promise<void> {
  const pane = app.lesson;
  for (const block of clickBlocks(l.steps[step])) {
    if (block.type !== 'predict') {
      await pane.run(block.key);
      continue;
    }
    await pane.answer(block.key, block.choices ? block.choices[0].value : '0');
    const given = (await pane.state()).active!.answers[block.key];
    if (!given.correct) {
      await pane.block(block.key).getByTestId('lesson.predict.retry').click();
      await pane.settled();
      await pane.answer(block.key, given.actual);
    }
  }
}

/** Text with every run of white space made one space. */
function flat(s: string): string {
  return s.replace(/\s+/g, ' ');
}

test.describe('the lessons say what their articles and the engine say', () => {
  for (const lang of ['en', 'ko'] as const) {
    for (const p of PASSAGES) {
      test(`${lang}/${p.id}, step ${p.step + 1}`, async ({ page }) => {
        test.setTimeout(180_000);
        const app = new SandboxPage(page);
        await app.open({ seed: 5 });
        await page.setViewportSize({ width: 1440, height: 900 });
        if (lang === 'ko') await app.byId('lang.ko').click();
        const l = lesson(lang, p.id);
        await app.lesson.open(p.id);
        if (p.step > 0) await app.lesson.goTo(p.step);
        await expect(app.lesson.title).toHaveText(l.steps[p.step].title);
        if (p.run) await runStep(app, l, p.step);
        const body = app.byId('lesson.step');
        for (const phrase of p.says[lang]) await expect(body).toContainText(phrase);
        const text = flat((await body.textContent()) ?? '');
        for (const phrase of p.not?.[lang] ?? []) expect(text).not.toContain(phrase);
        for (const [i, phrase] of p.says[lang].entries()) {
          await body.getByText(phrase, { exact: false }).first().scrollIntoViewIfNeeded();
          await app.screenshot(`labs/${p.id}-step${p.step + 1}-${lang}-${i + 1}`);
        }
        expect(app.errors).toEqual([]);
      });
    }
  }
});

test('the lesson list describes the slabs lesson as it now reads, in both languages', async ({ page }) => {
  const app = new SandboxPage(page);
  await app.open({ seed: 5 });
  await page.setViewportSize({ width: 1440, height: 900 });
  const item = page.locator('[data-testid="lessons.item"][data-lesson="memcached-slabs"]');
  await app.byId('lessons.open').click();
  await expect(item).toContainText('a page stays with its class');
  await expect(item).not.toContainText('never gives them back');
  await item.scrollIntoViewIfNeeded();
  await app.screenshot('labs/lesson-list-en');
  await page.keyboard.press('Escape');
  await app.byId('lang.ko').click();
  await app.byId('lessons.open').click();
  await expect(item).toContainText('청크에서 쓰지 않는 바이트는 낭비되고');
  await expect(item).not.toContainText('바이트가 새고');
  await item.scrollIntoViewIfNeeded();
  await app.screenshot('labs/lesson-list-ko');
  expect(app.errors).toEqual([]);
});
