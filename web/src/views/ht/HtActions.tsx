import { memo, useCallback, useState } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

const ADD_CHOICES = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000];
const DELETE_CHOICES = [1, 10, 100, 1000, 10_000, 100_000];

/** Add N keys (by MSET, as a client writes them) or delete N random keys,
 *  step the rehash, toggle active rehashing. */
export const HtActions = memo(function HtActions() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const db = useAppState((s) => s.db);
  const active = useAppState((s) => s.snapshot?.activeRehashing ?? true);
  const rehashing = useAppState((s) => (s.snapshot?.dict?.rehashidx ?? -1) >= 0);
  const [addN, setAddN] = useState(10_000);
  const target = useLessonTarget('ht.actions');
  const [delN, setDelN] = useState(1000);
  const onAdd = useCallback(() => void store.act({ kind: 'populate', db, n: addN, mset: true }), [store, db, addN]);
  const onDelete = useCallback(() => void store.act({ kind: 'delete', db, n: delN }), [store, db, delN]);
  const onStep = useCallback(() => void store.act({ kind: 'rehashStep', db, steps: 1 }), [store, db]);
  const onActive = useCallback(() => void store.act({ kind: 'activeRehash', on: !active }), [store, active]);
  return (
    <div className="actions" {...target}>
      <div className="action-group">
        <button type="button" className="btn primary" data-testid="ht.add" disabled={!ready} onClick={onAdd}
          title={t('ht.addHint')}>
          {t('ht.add')}
        </button>
        <CountSelect testId="ht.add.count" value={addN} choices={ADD_CHOICES} onChange={setAddN} label={t('ht.count')} />
        <span className="action-unit">{t('ht.addUnit')}</span>
      </div>
      <div className="action-group">
        <button type="button" className="btn" data-testid="ht.delete" disabled={!ready} onClick={onDelete}>
          {t('ht.delete')}
        </button>
        <CountSelect testId="ht.delete.count" value={delN} choices={DELETE_CHOICES} onChange={setDelN} label={t('ht.count')} />
        <span className="action-unit">{t('ht.deleteUnit')}</span>
      </div>
      <button type="button" className="btn" data-testid="ht.rehash.step" disabled={!ready || !rehashing} onClick={onStep}>
        {t('ht.step')}
      </button>
      <label className="toggle" title={t('ht.activeRehashingHint')}>
        <input type="checkbox" data-testid="ht.activeRehashing" checked={active} disabled={!ready} onChange={onActive} />
        <span>{t('ht.activeRehashing')}</span>
      </label>
    </div>
  );
});

interface CountSelectProps {
  testId: string;
  value: number;
  choices: number[];
  label: string;
  onChange: (n: number) => void;
}

const CountSelect = memo(function CountSelect({ testId, value, choices, label, onChange }: CountSelectProps) {
  return (
    <select data-testid={testId} aria-label={label} value={value} onChange={(e) => onChange(Number(e.target.value))}>
      {choices.map((n) => (
        <option key={n} value={n}>{n.toLocaleString('en-US')}</option>
      ))}
    </select>
  );
});
