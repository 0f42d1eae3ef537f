import { memo, useCallback } from 'react';
import { FIGURES_LAB_NAMES, LOOP_LAB_NAMES, REPL_LAB_NAMES, STEPPED_LAB_NAMES, type FiguresLabName, type LabName } from '../../../../wasm/protocol';
import { useAppState, useReady, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { useLoop, useLoopApi } from './hooks';
import { EvalLabTable } from './EvalLabTable';
import { LabTable } from './LabTable';
import { LiveLabRow } from './LiveLabRow';
import { SlowLabTable } from './SlowLabTable';

/** The labs: four run live in the sandbox or headless for figures; one
 *  (slow-command) only headless; the stepped one (eval-vs-zcard) runs
 *  live in a world of its own, and its figures follow. */
export const LabsPanel = memo(function LabsPanel() {
  const t = useT();
  const target = useLessonTarget('loop.labs');
  const lab = useAppState((s) => s.snapshot?.lab ?? null);
  // The replication labs' figures show in the Network pane.
  const shown = useLoop((s) => (s.labShown && !isReplLab(s.labShown) ? s.labShown : null));
  const run = useLoop((s) => (s.labShown ? s.labRuns[s.labShown] : undefined));
  const seed = useAppState((s) => s.log.config.seed);
  const stepped = useLoop((s) => (s.liveLab?.state === 'done' ? s.liveLab.result : null));
  return (
    <div className="loop-labs" {...target}>
      <p className="panel-hint">{t('lab.sub')}</p>
      <ul className="lab-list">
        {LOOP_LAB_NAMES.map((name) => <LabRow key={name} name={name} />)}
        {FIGURES_LAB_NAMES.map((name) => <LabRow key={name} name={name} />)}
        {STEPPED_LAB_NAMES.map((name) => <LiveLabRow key={name} name={name} />)}
      </ul>
      {stepped ? <EvalLabTable run={stepped} seed={seed} /> : null}
      {shown && run && 'json' in run ? (isFiguresLab(shown)
        ? <SlowLabTable run={run} seed={seed} title={t(`lab.name.${shown}`)} />
        : <LabTable run={run} seed={seed} title={t(`lab.name.${shown}`)} />) : null}
      {shown && run && 'error' in run ? <p className="scan-error">{t('lab.error', { msg: run.error })}</p> : null}
      {lab ? (
        <p className="lab-status" data-testid="lab.status" data-part={lab.part} data-done={lab.done ? 'yes' : 'no'}>
          {lab.done
            ? t('lab.partDone', { name: t(`lab.name.${lab.name}`), n: lab.parts })
            : t('lab.part', { name: t(`lab.name.${lab.name}`), k: lab.part + 1, n: lab.parts })}
        </p>
      ) : null}
    </div>
  );
});

function isReplLab(name: string): boolean {
  return (REPL_LAB_NAMES as readonly string[]).includes(name);
}

function isFiguresLab(name: string): name is FiguresLabName {
  return (FIGURES_LAB_NAMES as readonly string[]).includes(name);
}

/** A lab's row: Run live for the labs with a scene in the sandbox, and
 *  Figures for every one. */
export const LabRow = memo(function LabRow({ name }: { name: LabName | FiguresLabName }) {
  const t = useT();
  const store = useStoreApi();
  const loop = useLoopApi();
  const ready = useReady();
  const seed = useAppState((s) => s.log.config.seed);
  const run = useLoop((s) => s.labRuns[name]);
  const live = useCallback(() => {
    if (!isFiguresLab(name)) void store.act({ kind: 'lab', name });
  }, [store, name]);
  const headless = useCallback(() => void loop.runLab(name, seed), [loop, name, seed]);
  const running = run !== undefined && 'running' in run;
  return (
    <li className="lab-row" data-testid={`lab.${name}`}>
      <span className="lab-name">{t(`lab.name.${name}`)}</span>
      {isFiguresLab(name) ? null : (
        <button type="button" className="btn small primary" data-testid={`lab.${name}.live`} disabled={!ready}
          title={t('lab.liveHint')} onClick={live}>
          {t('lab.live')}
        </button>
      )}
      <button type="button" className="btn small" data-testid={`lab.${name}.headless`} disabled={running}
        title={isFiguresLab(name) ? t('lab.slow.hint', { name }) : t('lab.headlessHint', { name })} onClick={headless}>
        {running ? t('lab.running') : t('lab.headless')}
      </button>
    </li>
  );
});
