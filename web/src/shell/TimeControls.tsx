import { memo, useCallback } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { NextIcon, PauseIcon, PlayIcon } from './icons';
import { formatClock, formatDelta, formatSubMs, formatWall } from '../model/format';

const SPEEDS = [0.01, 0.1, 1, 10, 100];

export const TimeControls = memo(function TimeControls() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const playing = useAppState((s) => s.snapshot?.playing ?? false);
  const speed = useAppState((s) => s.speed);
  const onToggle = useCallback(() => void (playing ? store.pause() : store.play()), [playing, store]);
  const onStep = useCallback(() => void store.act({ kind: 'step' }), [store]);
  return (
    <div className="time" title={t('time.hint')}>
      <button
        type="button"
        className={`btn play ${playing ? 'on' : ''}`}
        data-testid="time.play"
        aria-pressed={playing}
        disabled={!ready}
        onClick={onToggle}
      >
        {playing ? <PauseIcon /> : <PlayIcon />} {playing ? t('time.pause') : t('time.play')}
      </button>
      <label className="speed" title={t('time.speed')}>
        <select
          data-testid="time.speed"
          aria-label={t('time.speed')}
          value={speed}
          disabled={!ready}
          onChange={(e) => void store.setSpeed(Number(e.target.value))}
        >
          {SPEEDS.map((s) => (
            <option key={s} value={s}>{`${s}×`}</option>
          ))}
        </select>
      </label>
      <button type="button" className="btn" data-testid="time.step" disabled={!ready || playing} onClick={onStep}>
        <NextIcon /> {t('time.step')}
      </button>
      <Clock />
    </div>
  );
});

const Clock = memo(function Clock() {
  const t = useT();
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const next = useAppState((s) => s.snapshot?.nextEvent ?? null);
  const zero = useAppState((s) => s.log.config.unixMsAtZero);
  return (
    <div className="clock" data-testid="time.clock">
      <span className="clock-label">{t('time.clock')}</span>
      <span className="clock-main">{formatClock(now)}</span>
      <span className="clock-sub">{formatSubMs(now)}</span>
      <span className="clock-meta">
        <span className="clock-wall">{formatWall(zero, now)} · </span>
        {next === null ? t('time.noEvents') : t('time.next', { t: formatDelta(next - now) })}
      </span>
    </div>
  );
});
