// The i18n layer's plurals (web/src/i18n/index.ts): no engine here, but it
// runs with the other Vitest suites.
import { describe, expect, it } from 'vitest';
import { en } from '../../web/src/i18n/en';
import { ko } from '../../web/src/i18n/ko';
import { translate, type MessageKey } from '../../web/src/i18n/index';
import { actionText } from '../../web/src/model/format';

describe('plural messages', () => {
  it('pick the English form by the count and leave Korean, which has none, alone', () => {
    expect(translate('en', 'console.deleted', { n: 1 })).toBe('deleted 1 key');
    expect(translate('en', 'console.deleted', { n: 0 })).toBe('deleted 0 keys');
    expect(translate('en', 'console.deleted', { n: 2500 })).toBe('deleted 2,500 keys');
    expect(translate('en', 'share.notice.openedLink', { n: 1 })).toBe('Opened a shared link: 1 action replayed.');
    expect(translate('en', 'ht.stripLabel', { i: 1, size: 1, used: 4 })).toBe('ht[1]: 1 bucket, 4 keys');
    expect(translate('ko', 'console.deleted', { n: 1 })).toBe('키 1개 삭제됨');
    expect(translate('ko', 'console.deleted', { n: 2 })).toBe('키 2개 삭제됨');
  });

  it('take the other form for a value that is not a number', () => {
    expect(translate('en', 'aof.bytes', { n: '1.5 KB' })).toBe('1.5 KB bytes');
    expect(translate('en', 'aof.bytes', { n: '1' })).toBe('1 byte');
  });

  it('leave no plural syntax behind in any English message, whatever the counts', () => {
    const keys = Object.keys(en) as MessageKey[];
    const plural = keys.filter((k) => en[k].includes(', plural,'));
    expect(plural.length).toBeGreaterThan(20);
    for (const k of plural) {
      const names = [...en[k].matchAll(/\{(\w+)/g)].map((m) => m[1]);
      for (const n of [1, 3]) {
        const params = Object.fromEntries(names.map((x) => [x, n]));
        const out = translate('en', k, params);
        expect(out, k).not.toMatch(/[{}#]|plural/);
      }
    }
  });
});

describe('actions in words', () => {
  it('name a crash\'s mode and point in the page\'s language, as the AOF panel does', () => {
    const ko = (k: MessageKey, p?: Record<string, string | number>) => translate('ko', k, p);
    const en = (k: MessageKey, p?: Record<string, string | number>) => translate('en', k, p);
    const armed = { kind: 'crashAt', mode: 'power', point: 'afterWrite' } as const;
    expect(actionText(en, armed)).toBe(translate('en', 'action.crashAt', {
      mode: translate('en', 'aof.crashAt.mode.power'), point: translate('en', 'aof.crashAt.afterWrite'),
    }));
    const said = actionText(ko, armed);
    expect(said).toContain(translate('ko', 'aof.crashAt.afterWrite'));
    expect(said).toContain(translate('ko', 'aof.crashAt.mode.power'));
    expect(said).not.toContain('afterWrite');
    expect(actionText(ko, { kind: 'crash', mode: 'process' })).toBe(translate('ko', 'action.crash', { mode: 'kill -9' }));
    expect(actionText(ko, { kind: 'restart' })).toBe(translate('ko', 'action.restart'));
  });
});

describe('the interface speaks to its readers', () => {
  // No word of how the project was made (an "issue" it came from) and no C
  // function's name: a reader knows neither.
  const INTERNAL: Record<'en' | 'ko', RegExp[]> = {
    en: [/\bissue\b/i, /\btickets?\b/i],
    ko: [/이슈/, /\bissue\b/i],
  };
  const C_NAME = /\bgk[A-Z]\w+\(?/;
  for (const lang of ['en', 'ko'] as const) {
    it(`in ${lang === 'en' ? 'English' : 'Korean'}, names neither an issue nor a C function`, () => {
      const table = lang === 'en' ? en : ko;
      const found: string[] = [];
      for (const [k, text] of Object.entries(table)) {
        for (const re of [...INTERNAL[lang], C_NAME]) if (re.test(text)) found.push(`${k}: ${text}`);
      }
      expect(found).toEqual([]);
      expect(Object.keys(table).length).toBeGreaterThan(500);
    });
  }
});
