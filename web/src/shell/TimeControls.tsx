import { memo, useCallback } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { NextIcon, PauseIcon, PlayIcon, RewindIcon } from './icons';
import { formatClock, formatDelta, formatSubMs, formatWall } from '../model/format';
import { useLoopApi } from '../views/loop/hooks';

const SPEEDS = [0.001, 0.01, 0.1, 1, 10, 100];

export const TimeControls = memo(function TimeControls() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const playing = useAppState((s) => s.snapshot?.playing ?? false);
  const speed = useAppState((s) => s.speed);
  const onToggle = useCallback(() => void (playing ? store.pause() : store.play()), [playing, store]);
  const onRewind = useCallback(() => void store.rewind(), [store]);
  const loop = useLoopApi();
  const onStep = useCallback(() => void store.act({ kind: 'step' }), [store]);
  const onIteration = useCallback(() => void store.act({ kind: 'stepIteration', node: 0 }), [store]);
  const onPhase = useCallback(() => void loop.nextPhase(0), [loop]);
  return (
    <div className="time" title={t('time.hint')}>
      <button type="button" className="btn rewind" data-testid="time.rewind" disabled={!ready} onClick={onRewind}
        aria-label={t('time.rewind')} title={t('time.rewind')} aria-keyshortcuts="R">
        <RewindIcon />
      </button>
      <button
        type="button"
        className={`btn play ${playing ? 'on' : ''}`}
        data-testid="time.play"
        aria-pressed={playing}
        disabled={!ready}
        onClick={onToggle}
      >
        {playing ? <PauseIcon /> : <PlayIcon />} <span className="btn-label">{playing ? t('time.pause') : t('time.play')}</span>
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
      <div className="step-group" role="group" aria-label={t('time.stepGroup')}>
        <span className="step-label">{t('time.stepGroup')}</span>
        <button type="button" className="btn" data-testid="time.step" disabled={!ready || playing} title={t('time.step')}
          onClick={onStep}>
          <NextIcon /> {t('time.stepEvent')}
        </button>
        <button type="button" className="btn" data-testid="time.stepIteration" disabled={!ready || playing}
          title={t('time.stepIterationHint')} onClick={onIteration}>
          <NextIcon /> {t('time.stepIterationShort')}
        </button>
        <button type="button" className="btn" data-testid="time.stepPhase" disabled={!ready || playing}
          title={t('time.stepPhaseHint')} onClick={onPhase}>
          <NextIcon /> {t('time.stepPhaseShort')}
        </button>
      </div>
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
