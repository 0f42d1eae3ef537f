// How the page was asked to appear, read once from its address:
//   ?embed=1&view=loop|keys|inspect|aof|slabs&lang=en|ko&autoplay=1#s=...  one view and
//     its controls, for an iframe; keeps nothing in storage
//   ?present=1  presenter mode from the start (full screen needs a click)
//   ?lang=ko    the interface language, for this visit
import type { Lang } from '../i18n';
import { PANES, type Pane } from './pane';

export interface PageMode {
  embed: boolean;
  /** The view an embed shows (the event loop unless told). */
  view: Pane;
  autoplay: boolean;
  present: boolean;
  lang: Lang | null;
}

function flag(v: string | null): boolean {
  return v !== null && v !== '0' && v !== 'false' && v !== 'no';
}

export function readMode(href: string): PageMode {
  const q = new URL(href).searchParams;
  const view = q.get('view');
  const lang = q.get('lang');
  return {
    embed: flag(q.get('embed')),
    view: (PANES as readonly (string | null)[]).includes(view) ? view as Pane : 'loop',
    autoplay: flag(q.get('autoplay')),
    present: flag(q.get('present')),
    lang: lang === 'en' || lang === 'ko' ? lang : null,
  };
}

let mode: PageMode | null = null;

/** The page's mode (read from the address the first time). */
export function pageMode(): PageMode {
  mode ??= readMode(location.href);
  return mode;
}

/** The query string of an embed of `view`. */
export function embedQuery(view: Pane, lang: Lang, autoplay: boolean): string {
  const q = new URLSearchParams({ embed: '1', view, lang });
  if (autoplay) q.set('autoplay', '1');
  return `?${q.toString()}`;
}
