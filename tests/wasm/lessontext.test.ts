// Every lesson as the page renders it (the Markdown components of
// web/src/views/lesson/Markdown.tsx on the parsed file), in English and
// Korean: no emphasis or code marker may reach the reader as a character.
// CommonMark closes `**` only where its flanking rules allow, and a
// closing `**` between punctuation and a letter (`**ht[0]**를`) does not
// close, so the asterisks show on the page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { MdBlock, MdInline } from '../../web/src/lessons/markdown';
import { decodeEntities, parseMarkdown } from '../../web/src/lessons/markdown';
import { parseLesson } from '../../web/src/lessons/parse';
import type { Lesson } from '../../web/src/lessons/types';
import { MdBlocks, MdInlines } from '../../web/src/views/lesson/Markdown';
import { lessonFiles, tutorialsRoot } from './lessonfiles';

const root = tutorialsRoot;

/** Rendered HTML to the text a reader sees outside code: code elements
 *  may show asterisks and backticks (`KEYS *`), so they are left out. */
function proseText(html: string): string {
  return decodeEntities(html.replace(/<code\b[^>]*>[^<]*<\/code>/g, ' ').replace(/<[^>]*>/g, ' '));
}

const blocks = (nodes: readonly MdBlock[]) => proseText(renderToStaticMarkup(createElement(MdBlocks, { nodes })));
const inlines = (nodes: readonly MdInline[]) => proseText(renderToStaticMarkup(createElement(MdInlines, { nodes })));

/** Markers that survived: `**`, `__`, or a pair of backticks. */
function leftovers(text: string): string[] {
  return [...text.matchAll(/\*\*|__|`[^`]*`/g)].map((m) => {
    const at = m.index;
    return text.slice(Math.max(0, at - 20), at + m[0].length + 20).replace(/\s+/g, ' ');
  });
}

/** Each piece of text the lesson panel and the lesson list show, with
 *  where it is: title, summary, intro, then per step its title, its prose,
 *  and each question with its choices and explanation. */
function renderedPieces(l: Lesson): [string, string][] {
  const out: [string, string][] = [['title', l.title], ['summary', inlines(l.summary)], ['intro', blocks(l.intro)]];
  for (const step of l.steps) {
    const where = `step ${step.index + 1}`;
    out.push([`${where} title`, step.title]);
    for (const item of step.items) {
      if (item.kind === 'prose') {
        out.push([`${where} prose`, blocks(item.nodes)]);
      } else if (item.block.type === 'predict') {
        const b = item.block;
        out.push([`${where} ${b.key} question`, inlines(b.question)]);
        for (const c of b.choices ?? []) out.push([`${where} ${b.key} choice`, c.label]);
        if (b.explain) out.push([`${where} ${b.key} explanation`, inlines(b.explain)]);
      }
    }
  }
  return out;
}

/** Hangul syllables or jamo. */
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/;

/** What a Korean reader reads as sentences: each paragraph of the prose
 *  (code left out), the title, the step titles, and each question and
 *  explanation. A choice may be a bare number, a table cell a figure. */
function sentences(l: Lesson): [string, string][] {
  const out: [string, string][] = [['title', l.title], ['summary', inlines(l.summary)]];
  const paragraphs = (where: string, nodes: readonly MdBlock[]) => {
    const html = renderToStaticMarkup(createElement(MdBlocks, { nodes }));
    for (const m of html.matchAll(/<p>([\s\S]*?)<\/p>/g)) out.push([where, proseText(m[1]).trim()]);
  };
  paragraphs('intro', l.intro);
  for (const step of l.steps) {
    const where = `step ${step.index + 1}`;
    out.push([`${where} title`, step.title]);
    for (const item of step.items) {
      if (item.kind === 'prose') paragraphs(`${where} prose`, item.nodes);
      else if (item.block.type === 'predict') {
        out.push([`${where} ${item.block.key} question`, inlines(item.block.question)]);
        if (item.block.explain) out.push([`${where} ${item.block.key} explanation`, inlines(item.block.explain)]);
      }
    }
  }
  return out.filter(([, text]) => text !== '');
}

describe('the rendered text of a lesson', () => {
  it('shows the markers CommonMark leaves unparsed, so the check below can fail', () => {
    expect(leftovers(blocks(parseMarkdown('해시 테이블 뷰의 **ht[0]**를 보세요.')))).toHaveLength(2);
    expect(leftovers(blocks(parseMarkdown('**ht[1]**이 나타나고')))).toHaveLength(2);
    expect(leftovers(blocks(parseMarkdown('a __b__c, ``d`` and an escaped \\`pair\\`')))).toHaveLength(3);
    expect(leftovers(blocks(parseMarkdown('**ht[0]** 테이블을 보세요. `KEYS *` and **a**')))).toEqual([]);
  });

  const files = lessonFiles();
  it('covers every lesson in both languages', () => {
    const langs = new Set(files.map((f) => f.split('/')[0]));
    expect([...langs].sort()).toEqual(['en', 'ko']);
    expect(files.length).toBeGreaterThanOrEqual(16);
  });

  it('finds a paragraph left in English, so the check below can fail', () => {
    const l = parseLesson('---\nid: demo\ntitle: 데모\nlevel: beginner\nviews: [console]\n---\n\n## 단계\n\n'
      + '한국어 문단입니다.\n\nThis paragraph was not translated.\n\n```lua\nreturn 1\n```\n', 'tutorials/ko/demo.md');
    expect(sentences(l).filter(([, text]) => !HANGUL.test(text)).map(([, text]) => text))
      .toEqual(['This paragraph was not translated.']);
  });

  it.each(files.filter((f) => f.startsWith('ko/')))('of %s is written in Korean, paragraph by paragraph', (file) => {
    const lesson = parseLesson(readFileSync(join(root, file), 'utf8'), `tutorials/${file}`);
    const english = sentences(lesson).filter(([, text]) => !HANGUL.test(text)).map(([where, text]) => `${where}: ${text}`);
    expect(english).toEqual([]);
  });

  it.each(files)('of %s has no literal **, __ or backtick pair in any step', (file) => {
    const lesson = parseLesson(readFileSync(join(root, file), 'utf8'), `tutorials/${file}`);
    expect(lesson.steps.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const [where, text] of renderedPieces(lesson)) {
      for (const bit of leftovers(text)) found.push(`${where}: ${bit}`);
    }
    expect(found).toEqual([]);
  });
});

describe('a figure the lesson cites from an article', () => {
  // The command-flushing lab shows about 3.3 and 7.4 times the default's
  // rate (batches of 50 and 1,000), where Lettuce's documentation says up
  // to five times: the step that cites the article says why they differ.
  const WHY: Record<'en' | 'ko', { cited: RegExp; says: RegExp[] }> = {
    en: { cited: /up to five times/, says: [/about 3\.3 times/, /about 7\.4 times/, /otherwise idle simulated loopback/, /no work between two commands/] },
    ko: { cited: /최대 5배/, says: [/약 3\.3배/, /약 7\.4배/, /한가한 시뮬레이션 루프백/, /명령과 명령 사이에 아무 일도 하지 않습니다/] },
  };
  for (const lang of ['en', 'ko'] as const) {
    it(`is explained where the lab's figures differ (${lang}/rtt-and-flushing)`, () => {
      const file = `${lang}/rtt-and-flushing.md`;
      const lesson = parseLesson(readFileSync(join(root, file), 'utf8'), `tutorials/${file}`);
      const steps = lesson.steps.map((s) => sentences({ ...lesson, steps: [s] })
        .filter(([where]) => where.startsWith('step')).map(([, text]) => text).join(' ').replace(/\s+/g, ' '));
      const at = steps.findIndex((text) => WHY[lang].cited.test(text));
      expect(at).toBeGreaterThanOrEqual(0);
      for (const re of WHY[lang].says) expect(steps[at], String(re)).toMatch(re);
    });
  }
});
