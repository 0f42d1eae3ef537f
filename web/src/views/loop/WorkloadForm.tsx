import { memo, useCallback, useState } from 'react';
import type { WorkloadAction, WorkloadPreset } from '../../../../wasm/protocol';
import { useAppState, useReady, useStoreApi, useT } from '../../app/hooks';

export const PRESETS: WorkloadPreset[] = ['benchmark', 'redis-py', 'lettuce', 'monitor'];
/** What a benchmark-like program sends, and what a monitor sends every
 *  interval (SCRIPT KILL: a second client stopping a busy script). */
const COMMANDS = ['GET', 'SET', 'INCR', 'PING'];
const MONITOR_COMMANDS = ['INFO', 'PING', 'SCRIPT KILL'];
const RTTS = [0, 20e3, 100e3, 200e3, 1e6, 10e6, 250e6];
const BANDWIDTHS = [0, 125e6, 12.5e6, 1.25e6];
const INTERVALS = [10e6, 50e6, 500e6, 2e9];
/** At most 15 client programs beside the server (the session record has 16 places). */
const MAX_PROGRAMS = 15;

interface Fields {
  clients: number;
  requests: number;
  command: string;
  valueSize: number;
  pipeline: number;
  multi: boolean;
  intervalNs: number;
  rttNs: number;
  bandwidth: number;
  /** Lettuce's auto-flush: each command written as it is issued. */
  autoFlush: boolean;
}

const DEFAULTS: Record<WorkloadPreset, Fields> = {
  benchmark: { clients: 50, requests: 100_000, command: 'GET', valueSize: 3, pipeline: 1, multi: false, intervalNs: 0, rttNs: 100e3, bandwidth: 0, autoFlush: false },
  'redis-py': { clients: 1, requests: 100_000, command: 'GET', valueSize: 3, pipeline: 1000, multi: true, intervalNs: 0, rttNs: 100e3, bandwidth: 0, autoFlush: false },
  lettuce: { clients: 1, requests: 20_000, command: 'GET', valueSize: 3, pipeline: 50, multi: false, intervalNs: 0, rttNs: 100e3, bandwidth: 0, autoFlush: true },
  monitor: { clients: 1, requests: 0, command: 'INFO', valueSize: 3, pipeline: 1, multi: false, intervalNs: 2e9, rttNs: 100e3, bandwidth: 0, autoFlush: false },
};

function toAction(preset: WorkloadPreset, f: Fields): WorkloadAction {
  const a: WorkloadAction = {
    kind: 'workload', preset, clients: f.clients, pipeline: f.pipeline, requests: f.requests, command: f.command,
    rttNs: f.rttNs, bandwidth: f.bandwidth, multi: f.multi, intervalNs: f.intervalNs,
  };
  if (f.command === 'SET') a.valueSize = f.valueSize;
  if (preset === 'lettuce') a.flush = f.autoFlush ? 1 : 0;
  return a;
}

function rttLabel(ns: number): string {
  return ns === 0 ? '0' : ns < 1e6 ? `${ns / 1e3} µs` : `${ns / 1e6} ms`;
}

function bwLabel(bps: number, unlimited: string): string {
  return bps === 0 ? unlimited : `${(bps * 8) / 1e6} Mbit/s`;
}

/** Starts a client program of one preset, with its parameters. */
export const WorkloadForm = memo(function WorkloadForm({ preset }: { preset: WorkloadPreset }) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const count = useAppState((s) => s.snapshot?.workloads.length ?? 0);
  const [all, setAll] = useState(DEFAULTS);
  const f = all[preset];
  const set = useCallback(<K extends keyof Fields>(k: K, v: Fields[K]) => {
    setAll((a) => ({ ...a, [preset]: { ...a[preset], [k]: v } }));
  }, [preset]);
  const start = useCallback(() => void store.act(toAction(preset, f)), [store, preset, f]);
  const num = (k: 'clients' | 'requests' | 'pipeline' | 'valueSize', label: string, max: number, hint?: string) => (
    <label className="wl-field" title={hint}>
      <span>{label}</span>
      <input type="number" min={k === 'requests' || k === 'valueSize' ? 0 : 1} max={max} value={f[k]}
        data-testid={`wl.${k}`} onChange={(e) => set(k, Math.max(0, Math.floor(Number(e.target.value) || 0)))} />
    </label>
  );
  return (
    <div className="wl-form">
      <p className="panel-hint">{t(`wl.hint.${preset}`)}</p>
      <div className="wl-fields">
        {preset === 'benchmark' ? num('clients', t('wl.clients'), 10_000) : null}
        {preset !== 'monitor' ? num('requests', t('wl.requests'), 1e9, t('wl.requestsHint')) : null}
        <label className="wl-field">
          <span>{t('wl.command')}</span>
          <select value={f.command} data-testid="wl.command" onChange={(e) => set('command', e.target.value)}>
            {(preset === 'monitor' ? MONITOR_COMMANDS : COMMANDS).map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        {preset !== 'monitor' && f.command === 'SET' ? num('valueSize', t('wl.valueSize'), 64 * 1024 * 1024) : null}
        {preset === 'benchmark' || preset === 'redis-py' ? num('pipeline', t('wl.pipeline'), 1_000_000) : null}
        {preset === 'lettuce' ? num('pipeline', t('wl.batch'), 1_000_000) : null}
        {preset === 'lettuce' ? (
          <label className="toggle wl-field">
            <input type="checkbox" checked={f.autoFlush} data-testid="wl.autoFlush"
              onChange={(e) => set('autoFlush', e.target.checked)} />
            <span>{t('wl.autoFlush')}</span>
          </label>
        ) : null}
        {preset === 'redis-py' ? (
          <label className="toggle wl-field">
            <input type="checkbox" checked={f.multi} data-testid="wl.multi" onChange={(e) => set('multi', e.target.checked)} />
            <span>{t('wl.multi')}</span>
          </label>
        ) : null}
        {preset === 'monitor' ? (
          <label className="wl-field">
            <span>{t('wl.interval')}</span>
            <select value={f.intervalNs} data-testid="wl.interval" onChange={(e) => set('intervalNs', Number(e.target.value))}>
              {INTERVALS.map((v) => <option key={v} value={v}>{rttLabel(v)}</option>)}
            </select>
          </label>
        ) : null}
        <label className="wl-field">
          <span>{t('wl.rtt')}</span>
          <select value={f.rttNs} data-testid="wl.rtt" onChange={(e) => set('rttNs', Number(e.target.value))}>
            {RTTS.map((v) => <option key={v} value={v}>{rttLabel(v)}</option>)}
          </select>
        </label>
        <label className="wl-field">
          <span>{t('wl.bandwidth')}</span>
          <select value={f.bandwidth} data-testid="wl.bandwidth" onChange={(e) => set('bandwidth', Number(e.target.value))}>
            {BANDWIDTHS.map((v) => <option key={v} value={v}>{bwLabel(v, t('wl.unlimited'))}</option>)}
          </select>
        </label>
        <button type="button" className="btn primary" data-testid="wl.start" disabled={!ready || count >= MAX_PROGRAMS}
          title={count >= MAX_PROGRAMS ? t('wl.full') : undefined} onClick={start}>
          {t('wl.start')}
        </button>
      </div>
    </div>
  );
});
