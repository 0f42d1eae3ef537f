import { memo, useContext, type MouseEvent, type ReactNode } from 'react';
import type { MdBlock, MdInline } from '../../lessons/markdown';
import { LessonContext } from './hooks';

/** Lesson prose: the node tree of lessons/markdown.ts as React elements.
 *  Text is always text; there is no way for a lesson to produce markup. */
export const MdBlocks = memo(function MdBlocks({ nodes }: { nodes: readonly MdBlock[] }) {
  return <>{nodes.map((n, i) => <Block key={i} node={n} />)}</>;
});

export const MdInlines = memo(function MdInlines({ nodes }: { nodes: readonly MdInline[] }) {
  return <>{inlines(nodes)}</>;
});

function inlines(nodes: readonly MdInline[]): ReactNode[] {
  return nodes.map((n, i) => <Inline key={i} node={n} />);
}

function Inline({ node }: { node: MdInline }): ReactNode {
  switch (node.t) {
    case 'text':
      return node.v;
    case 'code':
      return <code className="md-code">{node.v}</code>;
    case 'strong':
      return <strong>{inlines(node.c)}</strong>;
    case 'em':
      return <em>{inlines(node.c)}</em>;
    case 'del':
      return <del>{inlines(node.c)}</del>;
    case 'br':
      return <br />;
    case 'link': {
      const lesson = LESSON_LINK.exec(node.href)?.[1];
      if (lesson) return <LessonLink id={lesson} href={node.href}>{inlines(node.c)}</LessonLink>;
      const external = /^(https?:)?\/\//i.test(node.href);
      return (
        <a href={node.href} target={external ? '_blank' : undefined} rel={external ? 'noopener noreferrer' : undefined}>
          {inlines(node.c)}
        </a>
      );
    }
  }
}

/** A link to another lesson, written `[its title](?lesson=id)`. */
const LESSON_LINK = /^\?lesson=([a-z0-9-]+)$/;

/** Opens the lesson it names in place, as the lesson list does (the
 *  lesson open now keeps its progress); a click with a modifier, or a
 *  page without the lesson runner, follows the address instead, which
 *  opens the lesson on a new load. */
function LessonLink({ id, href, children }: { id: string; href: string; children: ReactNode }) {
  const runner = useContext(LessonContext);
  const open = (e: MouseEvent<HTMLAnchorElement>) => {
    if (!runner || !runner.lesson(id) || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    void runner.open(id);
  };
  return <a href={href} data-lesson-link={id} onClick={open}>{children}</a>;
}

function Block({ node }: { node: MdBlock }): ReactNode {
  switch (node.t) {
    case 'p':
      return <p>{inlines(node.c)}</p>;
    case 'h': {
      const H = `h${node.depth}` as 'h3' | 'h4' | 'h5' | 'h6';
      return <H className="md-h">{inlines(node.c)}</H>;
    }
    case 'list': {
      const items = node.items.map((item, i) => <li key={i}><MdBlocks nodes={item} /></li>);
      return node.ordered ? <ol start={node.start}>{items}</ol> : <ul>{items}</ul>;
    }
    case 'code':
      // Code in a language (Lua) keeps its lines and scrolls sideways in its
      // box; a block with no language (bytes on the wire, a reply) wraps,
      // preferably after each \r\n written out.
      return node.lang ? <pre className="md-pre"><code>{node.v}</code></pre> : (
        <pre className="md-pre wrap"><code>{breakAfterCrlf(node.v)}</code></pre>
      );
    case 'quote':
      return <blockquote><MdBlocks nodes={node.c} /></blockquote>;
    case 'hr':
      return <hr />;
    case 'table':
      return (
        <div className="md-table">
          <table>
            <thead>
              <tr>{node.head.map((c, i) => <th key={i} style={{ textAlign: node.align[i] ?? undefined }}>{inlines(c)}</th>)}</tr>
            </thead>
            <tbody>
              {node.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, i) => <td key={i} style={{ textAlign: node.align[i] ?? undefined }}>{inlines(c)}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
  }
}

/** Text with a break opportunity after each written-out \r\n. */
function breakAfterCrlf(text: string): ReactNode[] {
  return text.split(/(?<=\\r\\n)/).flatMap((part, i) => (i ? [<wbr key={i} />, part] : [part]));
}
