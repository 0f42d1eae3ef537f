import { memo, useCallback } from 'react';
import type { WorkloadView } from '../../../../wasm/protocol';
import { useAppState, useReady, useStoreApi, useT } from '../../app/hooks';
import { SERIES_COLORS, formatRate } from '../../render/charts';
import { formatDuration } from '../../render/timeaxis';
import { useLoop, useLoopApi } from './hooks';
import { ConnectionIcon } from '../../shell/icons';
import { programName } from './programName';

/** The client programs started so far, with what the engine says of them. */
export const WorkloadList = memo(function WorkloadList() {
  const t = useT();
  const workloads = useAppState((s) => s.snapshot?.workloads ?? null);
  if (!workloads?.length) return <p className="loop-empty">{t('wl.none')}</p>;
  return (
    <ul className="wl-list">
      {workloads.map((w, i) => <WorkloadRow key={w.id} w={w} color={SERIES_COLORS[i % SERIES_COLORS.length]} />)}
    </ul>
  );
});

const WorkloadRow = memo(function WorkloadRow({ w, color }: { w: WorkloadView; color: string }) {
  const t = useT();
  const store = useStoreApi();
  const loop = useLoopApi();
  const ready = useReady();
  const conn = useLoop((s) => s.conn);
  const s = w.stats;
  const state = s.done ? 'done' : w.stopped ? 'stopped' : 'running';
  const secs = (s.endNs - s.startNs) / 1e9;
  const rate = secs > 0 ? s.completed / secs : 0;
  const stop = useCallback(() => void store.act({ kind: 'workloadStop', id: w.id }), [store, w.id]);
  const follow = useCallback(() => loop.selectConn(w.conns[0] ?? null), [loop, w.conns]);
  const followed = conn !== null && w.conns.includes(conn);
  return (
    <li className={`wl-row ${followed ? 'followed' : ''}`} data-testid="wl.row" data-id={w.id} data-state={state}
      data-completed={s.completed}>
      <div className="wl-line">
        <span className="swatch" style={{ background: color }} aria-hidden="true" />
        <span className="wl-name">{t('loop.workload', { preset: programName(t, w.preset, w.spec.command), id: w.id })}</span>
        <span className={`chip ${state === 'done' ? 'chip-ok' : state === 'running' ? 'chip-warn' : ''}`}>{t(`wl.${state}`)}</span>
        <span className="wl-actions">
          <button type="button" className={`btn small ${followed ? 'on' : ''}`} onClick={follow} disabled={!w.conns.length}
            title={t('wl.follow')} aria-label={t('wl.follow')} aria-pressed={followed}><ConnectionIcon /></button>
          {state === 'running' ? (
            <button type="button" className="btn small" data-testid="wl.stop" disabled={!ready} onClick={stop}>{t('wl.stop')}</button>
          ) : null}
        </span>
      </div>
      <div className="wl-line wl-stats">
        <span className="stat">
          <b>{w.spec.requests ? t('wl.progress', { done: s.completed, all: w.spec.requests }) : t('wl.progressOpen', { done: s.completed })}</b>
        </span>
        <span className="stat"><b>{t('wl.rate', { r: formatRate(rate) })}</b></span>
        {s.latCount ? (
          <span className="stat">
            {t('wl.lat', { p50: formatDuration(s.latP50Ns), p99: formatDuration(s.latP99Ns), max: formatDuration(s.latMaxNs) })}
          </span>
        ) : null}
        {s.errors ? <span className="stat stat-error" data-testid="wl.errors">{t('wl.errors', { n: s.errors })}</span> : null}
      </div>
    </li>
  );
});
