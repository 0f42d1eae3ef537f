import { memo, useCallback, useState } from 'react';
import { AOF_LAB_NAMES, type AofLabName, type AofView } from '../../../../wasm/aofprotocol';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useAppState, useReady, useStoreApi, useT } from '../../app/hooks';
import { AofLabTable } from './AofLabTable';

type RunState = { running: true } | LabRunResult | { error: string };

/** The burst of the live scene: one client, one pipeline of 400 SETs, so
 *  that they arrive in one read and run in one iteration. */
const BURST = { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 1, pipeline: 400, requests: 400,
  keyspace: 1_000_000 } as const;

/** The AOF labs: each run headless in the worker (its own module, a fresh
 *  world) for its figures; aof-not-a-wal also as a live scene here. */
export const AofLabs = memo(function AofLabs({ view }: { view: AofView }) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const seed = useAppState((s) => s.log.config.seed);
  const [runs, setRuns] = useState<Partial<Record<AofLabName, RunState>>>({});
  const [shown, setShown] = useState<AofLabName | null>(null);
  const runLab = useCallback(async (name: AofLabName) => {
    setShown(name);
    setRuns((r) => ({ ...r, [name]: { running: true } }));
    let result: RunState;
    try {
      result = await store.aofLabRun(name, seed);
    } catch (e) {
      result = { error: e instanceof Error ? e.message : String(e) };
    }
    setRuns((r) => ({ ...r, [name]: result }));
  }, [store, seed]);
  const live = useCallback(async () => {
    await store.act({ kind: 'crashAt', point: 'beforeSleep', mode: 'process' });
    await store.act({ ...BURST });
  }, [store]);
  const canLive = ready && view.up && view.info?.state === 1 && !view.armed;
  // Why the live scene cannot start now, said beside its button.
  const liveBlocked = canLive ? null : !view.up ? 'aofLab.liveDown' : view.armed ? 'aofLab.liveArmed'
    : view.info?.state === 2 ? 'aofLab.liveRewrite' : view.info?.state !== 1 ? 'aofLab.liveOff' : null;
  const run = shown ? runs[shown] : undefined;
  return (
    <div className="aof-labs" data-testid="aof.labs">
      <h3>{t('aofLab.title')}</h3>
      <p className="dim">{t('aofLab.sub')}</p>
      <ul className="aof-lab-list">
        {AOF_LAB_NAMES.map((name) => {
          const r = runs[name];
          const running = r !== undefined && 'running' in r;
          return (
            <li key={name} className="aof-lab-row" data-testid={`aof.lab.${name}`}>
              <span className="aof-lab-name">{t(`aofLab.name.${name}`)}</span>
              <button type="button" className="btn small" data-testid={`aof.lab.${name}.run`} disabled={running}
                onClick={() => void runLab(name)}>
                {running ? t('aofLab.running') : t('aofLab.run')}
              </button>
              {name === 'aof-not-a-wal' ? (
                <button type="button" className="btn small" data-testid="aof.lab.live" disabled={!canLive} title={t('aofLab.liveHint')}
                  onClick={() => void live()}>{t('aofLab.live')}</button>
              ) : null}
              {name === 'aof-not-a-wal' && liveBlocked ? (
                <span className="dim small" data-testid="aof.lab.live.why">{t(liveBlocked)}</span>
              ) : null}
            </li>
          );
        })}
      </ul>
      {shown && run && 'json' in run ? <AofLabTable name={shown} run={run} seed={seed} /> : null}
      {shown && run && 'error' in run ? (
        <p className="warn" data-testid="aof.lab.error">
          {t('aofLab.error')} {t('aofLab.engineMessage')} <code lang="en">{run.error}</code>
        </p>
      ) : null}
    </div>
  );
});
