import { memo, useMemo, useState } from 'react';
import type { McClass, SlabsView } from '../../../../wasm/mcprotocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { slabColors } from './draw';
import { PAGES_SHOWN } from './hooks';
import { PagesCanvas } from './PagesCanvas';
import { showPagesFrom } from './selection';

const LEGEND = [
  { color: slabColors.free, key: 'slabs.legend.free' },
  { color: slabColors.used, key: 'slabs.legend.used' },
  { color: slabColors.pad, key: 'slabs.legend.pad' },
  { color: 'transparent', border: slabColors.head, round: true, key: 'slabs.legend.head' },
  { color: 'transparent', border: slabColors.fresh, key: 'slabs.legend.new' },
] as const;

const Legend = memo(function Legend() {
  const t = useT();
  return (
    <ul className="legend">
      {LEGEND.map((i) => (
        <li key={i.key}>
          <span className="swatch" aria-hidden="true" style={{
            background: i.color, border: 'border' in i ? `2px solid ${i.border}` : undefined,
            borderRadius: 'round' in i ? '50%' : undefined,
          }} />
          {t(i.key)}
        </li>
      ))}
    </ul>
  );
});

/** The numbers behind the grid: per page, chunks and bytes. */
const PagesTable = memo(function PagesTable({ view, c }: { view: SlabsView; c: McClass }) {
  const t = useT();
  const num = useFormatNumber();
  return (
    <table className="slabs-table pages" data-testid="slabs.pagesTable">
      <thead>
        <tr>
          {(['page', 'used', 'free', 'bytes', 'pad'] as const).map((k) => (
            <th key={k} scope="col">{t(`slabs.pages.col.${k}`)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {view.pages.map((p) => {
          let used = 0;
          let bytes = 0;
          for (const b of p.chunks) {
            if (b > 0) used++;
            bytes += b;
          }
          return (
            <tr key={p.index}>
              <th scope="row">{num(p.index)}</th>
              <td>{num(used)}</td>
              <td>{num(p.chunks.length - used)}</td>
              <td>{num(bytes)}</td>
              <td>{num(used * c.chunkSize - bytes)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
});

/** The selected class's pages, a few at a time, as a grid or as numbers. */
export const PagesView = memo(function PagesView({ view }: { view: SlabsView }) {
  const target = useLessonTarget('slabs.pages');
  const t = useT();
  const [asTable, setAsTable] = useState(false);
  const c = view.classes.find((x) => x.id === view.cls);
  const headPage = c?.freeHeadPage ?? -1;
  const headChunk = c?.freeHeadChunk ?? -1;
  const head = useMemo(() => (headPage >= 0 ? { page: headPage, chunk: headChunk } : null), [headPage, headChunk]);
  if (!c) return null;
  const n = view.used.length;
  const from = view.pages[0]?.index ?? 0;
  const to = from + view.pages.length - 1;
  let used = 0;
  let chunks = 0;
  for (const p of view.pages) {
    chunks += p.chunks.length;
    for (const b of p.chunks) if (b > 0) used++;
  }
  return (
    <section className="slabs-pages" aria-labelledby="slabs-pages-title" {...target} data-testid="slabs.pages" data-cls={c.id}
      data-page-count={n}>
      <div className="slabs-row-head">
        <h3 id="slabs-pages-title">{t('slabs.pages.title', { cls: c.id, chunk: c.chunkSize, perslab: c.perslab })}</h3>
        <div className="segmented" role="group" aria-label={t('slabs.pages.viewAs')}>
          <button type="button" aria-pressed={!asTable} onClick={() => setAsTable(false)} data-testid="slabs.asGrid">
            {t('slabs.pages.asGrid')}
          </button>
          <button type="button" aria-pressed={asTable} onClick={() => setAsTable(true)} data-testid="slabs.asTable">
            {t('slabs.pages.asTable')}
          </button>
        </div>
      </div>
      {n === 0 ? <p className="dim">{t('slabs.pages.none', { cls: c.id })}</p> : (
        <>
          <div className="slabs-row-head">
            <span className="dim">{t('slabs.pages.range', { from, to, n })}</span>
            <button type="button" className="btn small" disabled={from === 0}
              onClick={() => showPagesFrom(from - PAGES_SHOWN)}>{t('slabs.pages.prev')}</button>
            <button type="button" className="btn small" disabled={to >= n - 1}
              onClick={() => showPagesFrom(from + PAGES_SHOWN)}>{t('slabs.pages.next')}</button>
          </div>
          {asTable ? <PagesTable view={view} c={c} /> : (
            <>
              <PagesCanvas cls={c.id} pages={view.pages} chunkSize={c.chunkSize} perslab={c.perslab} head={head}
                label={t('slabs.pages.canvas', { cls: c.id, from, to, used, free: chunks - used })} />
              <Legend />
            </>
          )}
          <p className="dim small" data-testid="slabs.head">
            {head ? t('slabs.pages.headAt', { page: head.page, chunk: head.chunk }) : t('slabs.pages.noHead')}
          </p>
        </>
      )}
    </section>
  );
});
