// Every lesson of tutorials/<lang>/*.md, bundled at build time (Vite reads
// the files as text) and parsed once when the page loads. Adding a lesson is
// adding a file: nothing here names one.
import { pathInfo, parseLesson } from './parse';
import type { Lesson, LessonLang } from './types';

const sources = import.meta.glob('../../../tutorials/*/*.md', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export interface BrokenLesson {
  file: string;
  message: string;
}

export interface Catalog {
  /** Lessons by language, sorted by order then title. */
  byLang: Record<LessonLang, Lesson[]>;
  /** Files that failed to parse (the tests keep this empty). */
  broken: BrokenLesson[];
}

function build(): Catalog {
  const byLang: Record<LessonLang, Lesson[]> = { en: [], ko: [] };
  const broken: BrokenLesson[] = [];
  for (const [path, source] of Object.entries(sources)) {
    const file = path.replace(/^(\.\.\/)+/, '');
    if (!pathInfo(file)) continue;
    try {
      const lesson = parseLesson(source, file);
      byLang[lesson.lang].push(lesson);
    } catch (e) {
      broken.push({ file, message: e instanceof Error ? e.message : String(e) });
    }
  }
  for (const list of Object.values(byLang)) list.sort((a, b) => a.order - b.order || a.title.localeCompare(b.title));
  return { byLang, broken };
}

export const catalog: Catalog = build();

/** The lesson with this id in `lang`, else in English, else in any language. */
export function findLesson(id: string, lang: LessonLang): Lesson | null {
  return catalog.byLang[lang].find((l) => l.id === id)
    ?? catalog.byLang.en.find((l) => l.id === id)
    ?? catalog.byLang.ko.find((l) => l.id === id)
    ?? null;
}

/** Lesson ids in the order the list shows them (any language). */
export function lessonIds(lang: LessonLang): string[] {
  const ids = catalog.byLang[lang].map((l) => l.id);
  for (const l of [...catalog.byLang.en, ...catalog.byLang.ko]) if (!ids.includes(l.id)) ids.push(l.id);
  return ids;
}
