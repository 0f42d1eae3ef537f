import { memo, useState } from 'react';
import type { KeyInspection } from '../../../../wasm/protocol';
import { useT } from '../../app/hooks';
import { MoreButton } from './Body';
import { ruleText } from './ChangeNote';
import { Listpack } from './Listpack';
import { nodeListpack, readListpack, SHOWN, type PartTree, type QlNodeView, type QuicklistView } from './model';

/** Nodes whose listpack is open at first: the first ones. */
const OPEN_AT_FIRST = 3;

const NodeCard = memo(function NodeCard({ node, open, onToggle }: { node: QlNodeView; open: boolean; onToggle: () => void }) {
  const t = useT();
  return (
    <li className={`ql-node ${node.compressed ? 'lzf' : ''} ${open ? 'open' : ''}`} data-testid="inspect.ql.node"
      data-index={node.index} data-count={node.count} data-bytes={node.stored} data-compressed={node.compressed ? 'yes' : 'no'}>
      <button type="button" className="ql-node-btn" aria-expanded={open} onClick={onToggle}
        title={t(open ? 'inspect.ql.close' : 'inspect.ql.open')}>
        <span className="ql-node-name">{t('inspect.ql.node', { i: node.index + 1 })}</span>
        <span className="ql-node-count">{t('inspect.ql.count', { n: node.count })}</span>
        <span className="ql-node-line">{t('inspect.bytes', { n: node.stored })}</span>
        <span className="ql-node-line ql-node-kind">
          {node.compressed ? t('inspect.ql.lzf', { stored: node.stored, raw: node.raw }) : t('inspect.ql.raw')}
          {' '}{t(node.plain ? 'inspect.ql.plain' : 'inspect.ql.packed')}
        </span>
      </button>
    </li>
  );
});

/** A quicklist: its nodes in a row, head to tail, each with its count,
 *  bytes and compression; a node opens to its listpack. */
export const Quicklist = memo(function Quicklist({ reading, tree, view, onMore }: {
  reading: KeyInspection; tree: PartTree; view: QuicklistView; onMore: () => void;
}) {
  const t = useT();
  // Toggled by hand: node index -> open or closed.
  const [toggled, setToggled] = useState<Record<number, boolean>>({});
  const isOpen = (i: number) => toggled[i] ?? i < OPEN_AT_FIRST;
  const [lpMore, setLpMore] = useState(0);
  return (
    <div className="ql" data-testid="inspect.ql" data-nodes={view.nodes} data-fill={view.fill} data-compress={view.compress}>
      <h3 className="inspect-h3">{t('inspect.ql.title', { nodes: view.nodes, n: view.length })}</h3>
      <p className="inspect-note">
        {ruleText(t, view.fill)}.{' '}
        {view.compress === 0 ? t('inspect.compress.off') : t('inspect.compress.on', { d: view.compress })}.
      </p>
      <ol className="ql-row" aria-label={t('inspect.ql.list')}>
        {view.shown.map((n) => (
          <NodeCard key={n.index} node={n} open={isOpen(n.index)}
            onToggle={() => setToggled((o) => ({ ...o, [n.index]: !isOpen(n.index) }))} />
        ))}
        {view.more > 0 ? <li className="ql-more"><MoreButton left={view.more} step={64} onMore={onMore} testId="inspect.ql.more" /></li> : null}
      </ol>
      {view.shown.filter((n) => isOpen(n.index)).map((n) => {
        const lp = nodeListpack(reading, tree, n.part);
        return (
          <div key={n.index} className="ql-open" data-testid="inspect.ql.open" data-index={n.index}>
            {lp !== null ? (
              <Listpack view={readListpack(reading, tree, lp, 'list', SHOWN.entries + lpMore)} owner="list"
                onMore={() => setLpMore((m) => m + 64)} legend={false} node={n.index + 1} />
            ) : (
              <p className="inspect-note">
                {n.compressed ? t('inspect.ql.compressed', { i: n.index + 1 }) : t('inspect.ql.plainNode', { i: n.index + 1, n: n.raw })}
              </p>
            )}
          </div>
        );
      })}
      {view.shown.some((n) => isOpen(n.index)) ? <p className="inspect-legend">{t('inspect.lp.legend')}</p> : null}
    </div>
  );
});
