import { memo } from 'react';
import { useT } from '../../app/hooks';
import { chainHistogram, type DictView } from './model';

/** Tables of up to this many buckets are drawn bucket by bucket. */
const CELLS_MAX = 256;
/** Non-empty buckets listed for a bigger table. */
const LISTED = 48;

/** One table's buckets: every bucket when it is small, else how many
 *  buckets hold chains of each length and the first non-empty ones. */
const Table = memo(function Table({ view, table }: { view: DictView; table: 0 | 1 }) {
  const t = useT();
  const size = view.sizes[table];
  if (size === null) return null;
  const mine = view.buckets.filter((b) => b.table === table);
  const moved = table === 0 && view.rehashidx >= 0 ? view.rehashidx : 0;
  if (size <= CELLS_MAX && view.complete) {
    const chains = new Map(mine.map((b) => [b.index, b.chain]));
    return (
      <figure className="ht-cells-fig">
        <figcaption>{t('inspect.ht.strip', { i: table })}</figcaption>
        <ol className="ht-cells" data-testid={`inspect.ht.cells.${table}`}>
          {Array.from({ length: size }, (_, i) => {
            const n = chains.get(i) ?? 0;
            return (
              <li key={i} className={`ht-cell ${n ? 'full' : ''} ${n > 1 ? 'chain' : ''} ${i < moved ? 'moved' : ''}`}
                title={t('inspect.ht.cell', { b: i, n })} data-chain={n}>
                {n || ''}
              </li>
            );
          })}
        </ol>
      </figure>
    );
  }
  const hist = chainHistogram(view, table);
  const most = Math.max(1, ...hist);
  return (
    <div className="ht-big" data-testid={`inspect.ht.hist.${table}`}>
      <h4 className="inspect-h4">{t('inspect.ht.hist', { i: table })}</h4>
      <ul className="ht-hist">
        {hist.map((n, len) => (n > 0 ? (
          <li key={len}>
            <span className="ht-hist-label">{t('inspect.ht.histRow', { len, n })}</span>
            <span className={`ht-hist-bar ${len === 0 ? 'empty' : len > 1 ? 'chain' : ''}`} style={{ width: `${(100 * n) / most}%` }} />
          </li>
        ) : null))}
      </ul>
      <h4 className="inspect-h4">{t('inspect.ht.first')}</h4>
      <ol className="ht-list">
        {mine.slice(0, LISTED).map((b) => (
          <li key={b.index} className={`ht-chip ${b.chain > 1 ? 'chain' : ''}`} title={t('inspect.ht.cell', { b: b.index, n: b.chain })}>
            <span className="ht-chip-idx">{b.index}</span>
            <b>{b.chain}</b>
          </li>
        ))}
      </ol>
      {!view.complete ? <p className="dim">{t('inspect.ht.partial', { n: view.buckets.length })}</p> : null}
    </div>
  );
});

/** A hashtable: both tables' sizes, rehashidx, and the buckets holding
 *  entries with their chains' lengths. */
export const Hashtable = memo(function Hashtable({ view }: { view: DictView }) {
  const t = useT();
  return (
    <div className="ht-view" data-testid="inspect.dict" data-entries={view.entries} data-rehashidx={view.rehashidx}>
      <h3 className="inspect-h3">{t('inspect.ht.title', { n: view.entries })}</h3>
      <p className="inspect-facts-line">
        {[0, 1].map((i) => {
          const s = view.sizes[i];
          return <span key={i} className="stat">{s === null ? t('inspect.ht.none', { i }) : t('inspect.ht.table', { i, size: s })}</span>;
        })}
        <span className="stat">{view.rehashidx >= 0 ? t('inspect.ht.rehashing', { idx: view.rehashidx }) : t('inspect.ht.stable')}</span>
      </p>
      <Table view={view} table={0} />
      <Table view={view} table={1} />
    </div>
  );
});
