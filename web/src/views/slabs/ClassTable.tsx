import { memo, useCallback, useState } from 'react';
import type { McClass } from '../../../../wasm/mcprotocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { bytesText, classBytes, sumClasses } from './model';
import { selectClass } from './selection';
import { MarkIcon } from '../../shell/icons';

const COLS = ['id', 'chunk', 'perslab', 'pages', 'used', 'free', 'requested', 'usedBytes', 'waste', 'evicted'] as const;

const ClassRow = memo(function ClassRow({ c, selected, landing }: { c: McClass; selected: boolean; landing: boolean }) {
  const t = useT();
  const num = useFormatNumber();
  const { used, waste } = classBytes(c);
  const onClick = useCallback(() => selectClass(c.id), [c.id]);
  const cls = [selected ? 'selected' : '', landing ? 'landing' : '', c.evicted > 0 ? 'evicting' : '',
    c.pages === 0 ? 'empty' : ''].join(' ').trim();
  return (
    <tr className={cls} aria-selected={selected} data-testid={`slabs.class.${c.id}`} data-pages={c.pages}
      data-used={c.usedChunks} data-free={c.freeChunks} data-evicted={c.evicted}>
      <th scope="row">
        <button type="button" className="linkish" onClick={onClick} aria-label={t('slabs.selectClass', { cls: c.id })}>
          {landing ? <span className="landing-mark" aria-hidden="true"><MarkIcon /></span> : null}
          {c.id}
        </button>
      </th>
      <td>{num(c.chunkSize)} B</td>
      <td>{num(c.perslab)}</td>
      <td>{num(c.pages)}</td>
      <td>{num(c.usedChunks)}</td>
      <td>{num(c.freeChunks)}</td>
      <td>{bytesText(c.requested, num)}</td>
      <td>{bytesText(used, num)}</td>
      <td className={waste > 0 ? 'waste' : ''}>{bytesText(waste, num)}</td>
      <td className={c.evicted > 0 ? 'evicted' : ''}>{num(c.evicted)}</td>
    </tr>
  );
});

/** Every slab class with its memory, the landing class of the typed item
 *  marked (▶ and a stripe, not colour alone). */
export const ClassTable = memo(function ClassTable({ classes, selected, landing }: {
  classes: readonly McClass[]; selected: number; landing: number | null;
}) {
  const target = useLessonTarget('slabs.classes');
  const t = useT();
  const num = useFormatNumber();
  const [activeOnly, setActiveOnly] = useState(false);
  const shown = activeOnly ? classes.filter((c) => c.pages > 0 || c.id === landing || c.id === selected) : classes;
  const sum = sumClasses(classes);
  return (
    <div className="slabs-classes" {...target}>
      <div className="slabs-row-head">
        <button type="button" className="btn small ghost" aria-pressed={activeOnly} data-testid="slabs.activeOnly"
          onClick={() => setActiveOnly((v) => !v)}>
          {t('slabs.activeOnly')}
        </button>
      </div>
      <div className="slabs-table-wrap">
        <table className="slabs-table" data-testid="slabs.classes" data-classes={classes.length}>
          <caption>{t('slabs.table.caption')}</caption>
          <thead>
            <tr>{COLS.map((k) => <th key={k} scope="col">{t(`slabs.col.${k}`)}</th>)}</tr>
          </thead>
          <tbody>
            {shown.map((c) => <ClassRow key={c.id} c={c} selected={c.id === selected} landing={c.id === landing} />)}
          </tbody>
          <tfoot>
            <tr data-testid="slabs.total" data-waste={sum.waste} data-evicted={sum.evicted}>
              <th scope="row">{t('slabs.total')}</th>
              <td /><td />
              <td>{num(sum.pages)}</td>
              <td>{num(sum.used)}</td>
              <td>{num(sum.free)}</td>
              <td>{bytesText(sum.requested, num)}</td>
              <td>{bytesText(sum.usedBytes, num)}</td>
              <td className="waste">{bytesText(sum.waste, num)}</td>
              <td>{num(sum.evicted)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
      <p className="dim small">{t('slabs.waste.help')}</p>
    </div>
  );
});
