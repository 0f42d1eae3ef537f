import { memo, useState } from 'react';
import { CRASH_POINTS, type AofView, type CrashMode, type CrashPoint } from '../../../../wasm/aofprotocol';
import { useReady, useStoreApi, useT } from '../../app/hooks';

const MODES: readonly CrashMode[] = ['process', 'power'];

/** Arms a crash at a chosen point of what the server does next (a logged
 *  crashAt action); shows the armed one until it happens. */
export const CrashAtPicker = memo(function CrashAtPicker({ view }: { view: AofView }) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const [point, setPoint] = useState<CrashPoint>('beforeSleep');
  const [mode, setMode] = useState<CrashMode>('power');
  const armed = view.armed;
  return (
    <div className="aof-crash-at">
      <label>
        <span>{t('aof.crashAt')}</span>
        <select data-testid="aof.crashAt.point" value={point} disabled={!ready}
          onChange={(e) => setPoint(e.target.value as CrashPoint)}>
          {CRASH_POINTS.map((p) => <option key={p} value={p}>{t(`aof.crashAt.${p}`)}</option>)}
        </select>
      </label>
      <select data-testid="aof.crashAt.mode" value={mode} disabled={!ready} aria-label={t('aof.crash')}
        onChange={(e) => setMode(e.target.value as CrashMode)}>
        {MODES.map((m) => <option key={m} value={m}>{t(`aof.crashAt.mode.${m}`)}</option>)}
      </select>
      <button type="button" className="danger" data-testid="aof.crashAt.arm" disabled={!ready}
        onClick={() => void store.act({ kind: 'crashAt', point, mode })}>{t('aof.crashAt.arm')}</button>
      <p className="dim aof-crash-at-hint" data-testid="aof.crashAt.hint">{t(`aof.crashAt.${point}.hint`)}</p>
      {armed ? (
        <span className="warn" data-testid="aof.crashAt.armed">
          {t('aof.crashAt.armed', { mode: t(`aof.crashAt.mode.${armed.mode}`), point: t(`aof.crashAt.${armed.point}`) })}
        </span>
      ) : null}
    </div>
  );
});
