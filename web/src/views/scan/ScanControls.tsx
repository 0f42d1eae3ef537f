import { memo, useCallback, useEffect, useState, type FormEvent } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

/** COUNT and MATCH, then start, step or finish the walk. Enter in either
 *  field starts a walk. */
export const ScanControls = memo(function ScanControls() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const db = useAppState((s) => s.db);
  const scan = useAppState((s) => s.snapshot?.scan ?? null);
  const [count, setCount] = useState('10');
  const [match, setMatch] = useState('*');
  // A walk started elsewhere (a lesson's scan-start, a rewind, a shared
  // link) shows its COUNT and MATCH here, so the fields say what it uses.
  const walkCount = scan?.count;
  const walkMatch = scan?.match;
  useEffect(() => {
    if (walkCount !== undefined) setCount(String(walkCount));
    if (walkMatch !== undefined) setMatch(walkMatch);
  }, [walkCount, walkMatch]);
  const [running, setRunning] = useState(false);
  const target = useLessonTarget('scan.controls');
  const countN = Number(count);
  const countOk = Number.isInteger(countN) && countN >= 1 && countN <= 1_000_000;
  const canStep = ready && !running && scan !== null && !scan.done;

  const onStart = useCallback((e: FormEvent) => {
    e.preventDefault();
    if (!countOk) return;
    void store.act({ kind: 'scanStart', db, count: countN, match: match === '' ? '*' : match });
  }, [store, db, countN, countOk, match]);
  const onStep = useCallback(() => void store.act({ kind: 'scanStep' }), [store]);
  const onFinish = useCallback(async () => {
    setRunning(true);
    try {
      await store.scanToEnd();
    } finally {
      setRunning(false);
    }
  }, [store]);
  const onStop = useCallback(() => store.stopScan(), [store]);

  return (
    <form className="scan-controls" onSubmit={onStart} {...target}>
      <label className="field">
        <span>{t('scan.count')}</span>
        <input data-testid="scan.count" inputMode="numeric" value={count} size={5}
          aria-invalid={!countOk} onChange={(e) => setCount(e.target.value.trim())} />
      </label>
      <label className="field">
        <span>{t('scan.match')}</span>
        <input data-testid="scan.match" value={match} size={8} spellCheck={false}
          onChange={(e) => setMatch(e.target.value)} />
      </label>
      <button type="submit" className="btn" data-testid="scan.start" disabled={!ready || !countOk || running}>
        {t('scan.start')}
      </button>
      <button type="button" className="btn primary" data-testid="scan.step" disabled={!canStep} onClick={onStep}>
        {t('scan.step')}
      </button>
      {running ? (
        <button type="button" className="btn" data-testid="scan.stop" onClick={onStop}>{t('scan.stop')}</button>
      ) : (
        <button type="button" className="btn" data-testid="scan.finish" disabled={!canStep} onClick={onFinish}>
          {t('scan.finish')}
        </button>
      )}
      {scan ? <span className="stat" data-testid="scan.calls">{t('scan.calls', { n: scan.calls })}</span> : null}
      {running && scan?.audit ? (
        <span className="stat" data-testid="scan.progress" role="status">
          {t('scan.progress', { returned: scan.audit.returned, tracked: scan.audit.tracked })}
        </span>
      ) : null}
    </form>
  );
});
