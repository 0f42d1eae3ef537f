// The lesson files of tutorials/, for the tests that read every lesson.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The tutorials directory. */
export const tutorialsRoot = new URL('../../tutorials/', import.meta.url).pathname;

/** Every lesson as "lang/file.md", sorted. */
export function lessonFiles(): string[] {
  const out: string[] = [];
  for (const lang of readdirSync(tutorialsRoot, { withFileTypes: true })) {
    if (!lang.isDirectory()) continue;
    for (const f of readdirSync(join(tutorialsRoot, lang.name))) if (f.endsWith('.md')) out.push(`${lang.name}/${f}`);
  }
  return out.sort();
}
