import { memo, useCallback, useState } from 'react';
import { MC_LAB_NAMES, type McLabName } from '../../../../wasm/mcprotocol';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { SlabLabTable } from './SlabLabTable';

type RunState = { running: true } | LabRunResult | { error: string };

/** The slab labs: each run headless in the worker (a module of its own, a
 *  fresh world), never touching the sandbox's node. */
export const SlabLabs = memo(function SlabLabs() {
  const t = useT();
  const store = useStoreApi();
  const target = useLessonTarget('slabs.labs');
  const seed = useAppState((s) => s.log.config.seed);
  const [runs, setRuns] = useState<Partial<Record<McLabName, RunState>>>({});
  const [shown, setShown] = useState<McLabName | null>(null);
  const runLab = useCallback(async (name: McLabName) => {
    setShown(name);
    setRuns((r) => ({ ...r, [name]: { running: true } }));
    let result: RunState;
    try {
      result = await store.mcLabRun(name, seed);
    } catch (e) {
      result = { error: e instanceof Error ? e.message : String(e) };
    }
    setRuns((r) => ({ ...r, [name]: result }));
  }, [store, seed]);
  const run = shown ? runs[shown] : undefined;
  return (
    <div className="slabs-labs" data-testid="slabs.labs" {...target}>
      <h3>{t('slabLab.title')}</h3>
      <p className="dim">{t('slabLab.sub')}</p>
      <ul className="slabs-lab-list">
        {MC_LAB_NAMES.map((name) => {
          const r = runs[name];
          const running = r !== undefined && 'running' in r;
          return (
            <li key={name} className="slabs-lab-row" data-testid={`slabs.lab.${name}`}>
              <span className="slabs-lab-name">{t(`slabLab.name.${name}`)}</span>
              <button type="button" className="btn small" data-testid={`slabs.lab.${name}.run`} disabled={running}
                aria-pressed={shown === name} onClick={() => void runLab(name)}>
                {running ? t('slabLab.running') : t('slabLab.run')}
              </button>
            </li>
          );
        })}
      </ul>
      {shown && run && 'json' in run ? <SlabLabTable name={shown} run={run} seed={seed} /> : null}
      {shown && run && 'error' in run ? (
        <p className="warn" data-testid="slabs.lab.error">
          {t('slabLab.error')} {t('slabLab.engineMessage')} <code lang="en">{run.error}</code>
        </p>
      ) : null}
    </div>
  );
});
