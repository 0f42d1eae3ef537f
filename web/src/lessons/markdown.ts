// Markdown without HTML. marked's lexer turns lesson prose into tokens; this
// file keeps only the constructs a lesson needs and converts them into a
// small tree of plain objects that React renders as elements. Raw HTML, in
// blocks or inline, never reaches that tree: its tags are dropped, and so is
// everything inside elements whose content is not text (script, style, ...).
// Links keep only web, mail and in-page addresses; images become their alt
// text. Nothing is ever assigned to innerHTML, so a lesson file cannot
// inject markup into the page.
import { Lexer, type Token, type Tokens } from 'marked';

export type MdInline =
  | { t: 'text'; v: string }
  | { t: 'strong' | 'em' | 'del'; c: MdInline[] }
  | { t: 'code'; v: string }
  | { t: 'link'; href: string; c: MdInline[] }
  | { t: 'br' };

export type Align = 'left' | 'center' | 'right' | null;

export type MdBlock =
  | { t: 'p'; c: MdInline[] }
  | { t: 'h'; depth: number; c: MdInline[] }
  | { t: 'list'; ordered: boolean; start: number; items: MdBlock[][] }
  | { t: 'code'; lang: string; v: string }
  | { t: 'quote'; c: MdBlock[] }
  | { t: 'hr' }
  | { t: 'table'; align: Align[]; head: MdInline[][]; rows: MdInline[][][] };

/** Elements whose content is code or markup, not text: skipped whole. */
const OPAQUE = /^<(script|style|iframe|textarea|title|noscript|xmp|template|object|svg|math)\b/i;

const ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', middot: '·', hellip: '…',
  ndash: '–', mdash: '—', larr: '←', rarr: '→', times: '×',
};

/** Decodes the character references marked leaves in text. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Lesson links are read the way the browser will read them: by the WHATWG
 *  URL parser (the URL constructor), against a base of our own. A pattern
 *  on the raw text cannot do that -- the parser drops tabs and newlines
 *  anywhere (`java\tscript:`), trims control characters and spaces at
 *  both ends, ignores the case of schemes, and takes `/\host` and `//host`
 *  as another host, not as a path. */
const LINK_BASE = new URL('https://lesson.glasskv.invalid/tutorials/');
const LINK_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:']);
/** What the parser removes before it reads anything. */
const STRIPPED_ENDS = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const STRIPPED_INSIDE = /[\t\n\r]/g;

/** The address a lesson may link to, or null (the link is dropped and
 *  its text kept). A link that stays on the page's own origin (a path, a
 *  query, an in-page #anchor) is kept relative, as written less what the
 *  parser ignores; any other address is absolute, and only http:, https:
 *  and mailto: ones are kept, written as the parser reads them. */
export function safeHref(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href, LINK_BASE);
  } catch {
    return null;
  }
  const written = href.replace(STRIPPED_ENDS, '').replace(STRIPPED_INSIDE, '');
  // Our base's own origin is reached by a path, or by an address naming
  // it (a scheme, or an authority after // or /\), which means nothing
  // on the page.
  const relative = !/^[a-z][a-z0-9+.-]*:/i.test(written) && !/^[\\/]{2}/.test(written);
  if (url.origin === LINK_BASE.origin) return relative ? written : null;
  return LINK_SCHEMES.has(url.protocol) ? url.href : null;
}

function pushText(out: MdInline[], v: string): void {
  if (!v) return;
  const last = out[out.length - 1];
  if (last && last.t === 'text') last.v += v;
  else out.push({ t: 'text', v });
}

/** Inline tokens to inline nodes. */
export function inlineNodes(tokens: readonly Token[] | undefined): MdInline[] {
  const out: MdInline[] = [];
  let skipUntil: RegExp | null = null;
  for (const tok of tokens ?? []) {
    if (skipUntil) {
      if (tok.type === 'html' && skipUntil.test(tok.text)) skipUntil = null;
      continue;
    }
    switch (tok.type) {
      case 'text': {
        const t = tok as Tokens.Text;
        if (t.tokens && t.tokens.length) for (const n of inlineNodes(t.tokens)) appendNode(out, n);
        else pushText(out, decodeEntities(t.text));
        break;
      }
      case 'escape':
        pushText(out, (tok as Tokens.Escape).text);
        break;
      case 'codespan':
        out.push({ t: 'code', v: (tok as Tokens.Codespan).text });
        break;
      case 'strong':
      case 'em':
      case 'del':
        out.push({ t: tok.type, c: inlineNodes((tok as Tokens.Strong).tokens) });
        break;
      case 'br':
        out.push({ t: 'br' });
        break;
      case 'link': {
        const l = tok as Tokens.Link;
        const href = safeHref(l.href);
        const c = inlineNodes(l.tokens);
        if (href) out.push({ t: 'link', href, c });
        else for (const n of c) appendNode(out, n);
        break;
      }
      case 'image':
        pushText(out, decodeEntities((tok as Tokens.Image).text));
        break;
      case 'html': {
        const m = OPAQUE.exec(tok.text);
        if (m && !new RegExp(`</${m[1]}\\s*>\\s*$`, 'i').test(tok.text)) skipUntil = new RegExp(`^</${m[1]}\\s*>`, 'i');
        break;
      }
      default:
        // Anything else (a checkbox of a task list, an extension) carries no text worth keeping.
        break;
    }
  }
  return out;
}

function appendNode(out: MdInline[], n: MdInline): void {
  if (n.t === 'text') pushText(out, n.v);
  else out.push(n);
}

/** Plain text of inline nodes (for headings used as titles). */
export function plainText(nodes: readonly MdInline[]): string {
  let s = '';
  for (const n of nodes) {
    if (n.t === 'text' || n.t === 'code') s += n.v;
    else if (n.t === 'br') s += ' ';
    else s += plainText(n.c);
  }
  return s;
}

/** Block tokens to block nodes. Raw HTML blocks are dropped. */
export function blockNodes(tokens: readonly Token[]): MdBlock[] {
  const out: MdBlock[] = [];
  for (const tok of tokens) {
    const b = blockNode(tok);
    if (b) out.push(b);
  }
  return out;
}

function blockNode(tok: Token): MdBlock | null {
  switch (tok.type) {
    case 'paragraph':
    case 'text': {
      const t = tok as Tokens.Paragraph | Tokens.Text;
      const c = t.tokens ? inlineNodes(t.tokens) : [{ t: 'text' as const, v: decodeEntities(t.text) }];
      return c.length ? { t: 'p', c } : null;
    }
    case 'heading': {
      const h = tok as Tokens.Heading;
      return { t: 'h', depth: Math.max(3, Math.min(6, h.depth + 1)), c: inlineNodes(h.tokens) };
    }
    case 'code': {
      const c = tok as Tokens.Code;
      return { t: 'code', lang: (c.lang ?? '').trim(), v: c.text };
    }
    case 'blockquote':
      return { t: 'quote', c: blockNodes((tok as Tokens.Blockquote).tokens) };
    case 'hr':
      return { t: 'hr' };
    case 'list': {
      const l = tok as Tokens.List;
      const start = typeof l.start === 'number' ? l.start : 1;
      return { t: 'list', ordered: l.ordered, start, items: l.items.map((i) => blockNodes(i.tokens)) };
    }
    case 'table': {
      const t = tok as Tokens.Table;
      return {
        t: 'table',
        align: t.align.map((a) => a ?? null),
        head: t.header.map((cell) => inlineNodes(cell.tokens)),
        rows: t.rows.map((row) => row.map((cell) => inlineNodes(cell.tokens))),
      };
    }
    default:
      // 'html' blocks, 'space', link definitions: nothing to show.
      return null;
  }
}

/** Lexes Markdown source into tokens (GitHub-flavoured, as marked reads it). */
export function lex(source: string): Token[] {
  return new Lexer({ gfm: true }).lex(source);
}

/** Markdown source to block nodes in one go. */
export function parseMarkdown(source: string): MdBlock[] {
  return blockNodes(lex(source));
}

/** One line of Markdown (a question, an explanation) to inline nodes. */
export function parseInline(source: string): MdInline[] {
  const blocks = parseMarkdown(source);
  const out: MdInline[] = [];
  for (const b of blocks) {
    if (b.t !== 'p' && b.t !== 'h') continue;
    if (out.length) pushText(out, ' ');
    for (const n of b.c) appendNode(out, n);
  }
  return out;
}
