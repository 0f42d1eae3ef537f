import { memo, useMemo, type CSSProperties } from 'react';
import { useFormatNumber, useT } from '../../app/hooks';
import { MoreButton } from './Body';
import { skiplistGrid, type DictView, type SkiplistView, type SlCell } from './model';

/** Characters of a member drawn under its tower. */
const MEMBER_SHOWN = 10;

function at(col: number, row: number): CSSProperties {
  return { gridColumn: col + 2, gridRow: row };
}

/** The classic skiplist picture: the header and the first nodes in rank
 *  order, each a tower of levels; each level's box holds its span and
 *  links right to the next node as tall, over the shorter ones. */
export const Skiplist = memo(function Skiplist({ view, dict, onMore }: {
  view: SkiplistView; dict: DictView | null; onMore: () => void;
}) {
  const t = useT();
  const num = useFormatNumber();
  const grid = useMemo(() => skiplistGrid(view), [view]);
  const levels = view.levels;
  const row = (level: number) => levels - level;
  const rankRow = levels + 1;
  const cellOf = (c: SlCell, i: number) => {
    if (c.kind === 'pass') return <span key={i} className="sl-pass" style={at(c.col, row(c.level))} />;
    if (c.kind === 'end') {
      return (
        <span key={i} className={`sl-end ${c.to === 0 ? 'null' : ''}`} style={at(c.col, row(c.level))}>
          {c.to === 0 ? t('inspect.sl.null') : c.to < 0 ? t('inspect.sl.unknown') : t('inspect.sl.rankN', { n: c.to })}
        </span>
      );
    }
    const to = c.to === 0 ? t('inspect.sl.null') : c.to < 0 ? t('inspect.sl.unknown') : t('inspect.sl.rankN', { n: c.to });
    return (
      <span key={i} className={`sl-box ${c.into ? 'into' : ''} ${c.to === 0 ? 'to-null' : ''} ${c.col === 0 ? 'head' : ''}`}
        style={at(c.col, row(c.level))} title={t('inspect.sl.link', { l: c.level, span: c.span ?? '?', to })}
        data-testid="inspect.sl.box" data-col={c.col} data-level={c.level} data-span={c.span ?? ''} data-to={c.to}>
        {c.span ?? '?'}
      </span>
    );
  };
  return (
    <div className="sl" data-testid="inspect.sl" data-length={view.length} data-levels={levels}>
      <h3 className="inspect-h3">{t('inspect.sl.title', { n: view.length, levels })}</h3>
      {dict ? (
        <p className="inspect-note" data-testid="inspect.sl.dict">
          {t('inspect.sl.dict', { n: dict.entries, size: dict.sizes[0] ?? 0 })}
        </p>
      ) : null}
      <div className="sl-scroll" tabIndex={0} role="group" aria-label={t('inspect.sl.title', { n: view.length, levels })}>
        <div className="sl-grid" style={{ gridTemplateColumns: `auto repeat(${grid.cols}, var(--sl-col))` }}>
          {Array.from({ length: levels }, (_, l) => (
            <span key={`l${l}`} className="sl-level" style={{ gridColumn: 1, gridRow: row(l) }}>{t('inspect.sl.level', { l })}</span>
          ))}
          <span className="sl-label" style={{ gridColumn: 1, gridRow: rankRow }}>{t('inspect.sl.rank')}</span>
          <span className="sl-label" style={{ gridColumn: 1, gridRow: rankRow + 1 }}>{t('inspect.sl.score')}</span>
          <span className="sl-label" style={{ gridColumn: 1, gridRow: rankRow + 2 }}>{t('inspect.sl.member')}</span>
          <span className="sl-foot head" style={at(0, rankRow)}>{t('inspect.sl.header')}</span>
          {grid.cells.map(cellOf)}
          {view.nodes.map((n, i) => (
            <span key={`n${n.rank}`} className="sl-node-foot" style={{ display: 'contents' }}>
              <span className="sl-foot rank" style={at(i + 1, rankRow)} data-testid="inspect.sl.node" data-rank={n.rank}
                data-height={n.height} data-score={n.score} data-member={n.member ?? ''}>{num(n.rank)}</span>
              <span className="sl-foot score" style={at(i + 1, rankRow + 1)}>{String(n.score)}</span>
              <span className="sl-foot member" style={at(i + 1, rankRow + 2)} title={n.member ?? ''}>
                {n.member === null ? '' : n.member.length > MEMBER_SHOWN ? `${n.member.slice(0, MEMBER_SHOWN)}…` : n.member}
              </span>
            </span>
          ))}
        </div>
      </div>
      <MoreButton left={view.more} step={64} onMore={onMore} testId="inspect.sl.more" />
      <p className="inspect-legend">{t('inspect.sl.legend')}</p>
    </div>
  );
});
