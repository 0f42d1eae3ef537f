// Message lookup and the chosen language. No React here: components read
// the language through app/hooks.ts.
import { en, type MessageKey } from './en';
import { ko } from './ko';

export type Lang = 'en' | 'ko';
export type { MessageKey };
export type Params = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: Params) => string;

const tables: Record<Lang, Record<MessageKey, string>> = { en, ko };
const STORAGE_KEY = 'glasskv.lang';

export function translate(lang: Lang, key: MessageKey, params?: Params): string {
  const text = tables[lang][key] ?? en[key];
  if (!params) return text;
  return text
    .replace(PLURAL, (whole, name: string, branches: string) =>
      name in params ? pluralBranch(lang, params[name], branches) : whole)
    .replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in params ? formatParam(lang, params[name]) : whole);
}

/** A plural in a message, in a small subset of ICU MessageFormat:
 *  `{n, plural, one {# key} other {# keys}}`. Each branch may hold `#` (the
 *  number, formatted) and simple `{param}`s, but no nested plural. Korean
 *  messages need none: the language has no grammatical plural. */
const PLURAL = /\{(\w+), plural,((?:\s*(?:=\d+|zero|one|two|few|many|other) \{(?:[^{}]|\{\w+\})*\})+)\s*\}/g;
const BRANCH = /(=\d+|zero|one|two|few|many|other) \{((?:[^{}]|\{\w+\})*)\}/g;
const rules: Partial<Record<Lang, Intl.PluralRules>> = {};

/** Picks the branch for `v` by the language's plural rules (an exact `=N`
 *  first, then the category, then `other`); a value that is not a number
 *  takes `other`. */
function pluralBranch(lang: Lang, v: string | number, branches: string): string {
  const n = typeof v === 'number' ? v : Number(v.replace(/,/g, ''));
  const found = new Map<string, string>();
  for (const m of branches.matchAll(BRANCH)) found.set(m[1], m[2]);
  const rule = (rules[lang] ??= new Intl.PluralRules(lang === 'ko' ? 'ko-KR' : 'en-US'));
  const text = Number.isFinite(n)
    ? found.get(`=${n}`) ?? found.get(rule.select(n)) ?? found.get('other')
    : found.get('other');
  return (text ?? '').replace(/#/g, formatParam(lang, v));
}

/** A number as the UI language writes it (not the browser's locale, which
 *  may differ from the language chosen). */
export function formatNumber(lang: Lang, n: number): string {
  return n.toLocaleString(lang === 'ko' ? 'ko-KR' : 'en-US');
}

function formatParam(lang: Lang, v: string | number): string {
  return typeof v === 'number' ? formatNumber(lang, v) : v;
}

export function initialLang(): Lang {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'ko') return saved;
  } catch {
    // Storage may be unavailable (private mode): fall back to the browser.
  }
  return navigator.language.toLowerCase().startsWith('ko') ? 'ko' : 'en';
}

export function saveLang(lang: Lang): void {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not persisted; the choice still holds for this page.
  }
}
