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
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? formatParam(lang, params[name]) : whole);
}

function formatParam(lang: Lang, v: string | number): string {
  return typeof v === 'number' ? v.toLocaleString(lang === 'ko' ? 'ko-KR' : 'en-US') : v;
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
