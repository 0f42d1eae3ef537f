import { memo } from 'react';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import { DictStatus } from './DictStatus';
import { HtActions } from './HtActions';
import { Legend } from './Legend';
import { TableRow } from './TableRow';
import { useLessonTarget } from '../lesson/hooks';

const DBS = Array.from({ length: 16 }, (_, i) => i);

export const HashTablePanel = memo(function HashTablePanel() {
  const t = useT();
  const store = useStoreApi();
  const db = useAppState((s) => s.db);
  const hasDict = useAppState((s) => Boolean(s.snapshot?.dict?.tables[0]));
  const both = useAppState((s) => Boolean(s.snapshot?.dict?.tables[1]));
  const target = useLessonTarget('ht');
  return (
    <section className="panel ht" aria-labelledby="ht-title" {...target}>
      <header className="panel-head">
        <h2 id="ht-title">{t('ht.title')}</h2>
        {/* The subtitle names the db with its select, on the title's row:
            a rehash's status beside them still leaves the row one line. */}
        <label className="panel-sub ht-db">
          <span>{t('ht.subtitle')} {t('ht.db')}</span>
          <select data-testid="ht.db" value={db} onChange={(e) => store.setDb(Number(e.target.value))}>
            {DBS.map((d) => (
              <option key={d} value={d}>{d}</option>
            ))}
          </select>
        </label>
        <DictStatus />
      </header>
      <div className={`tables ${both ? 'both' : ''}`}>
        <TableRow index={0} />
        <TableRow index={1} />
        {hasDict ? null : <p className="tables-empty">{t('ht.empty')}</p>}
      </div>
      <Legend />
      <HtActions />
    </section>
  );
});
