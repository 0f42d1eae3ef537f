import { memo, useEffect, useState } from 'react';
import { MC_DEFAULTS, mcSize, type McClass, type McOptions } from '../../../../wasm/mcprotocol';
import { useReady, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { ITEM_MAX_STEPS } from './model';

const MEMORY_STEPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

function nearest(steps: readonly number[], v: number): number {
  let best = 0;
  for (let i = 1; i < steps.length; i++) if (Math.abs(steps[i] - v) < Math.abs(steps[best] - v)) best = i;
  return best;
}

function Slider(props: { id: string; label: string; min: number; max: number; step: number; value: number;
  shown: string; onChange: (v: number) => void }) {
  return (
    <div className="whatif-slider">
      <label htmlFor={props.id}>{props.label}</label>
      <input id={props.id} type="range" min={props.min} max={props.max} step={props.step} value={props.value}
        data-testid={props.id} aria-valuetext={props.shown}
        onChange={(e) => props.onChange(Number(e.target.value))} />
      <output htmlFor={props.id}>{props.shown}</output>
    </div>
  );
}

/** Sliders for -f, -n, -I and -m; the engine lays out the ladder they give
 *  (gkMemcachedLayout) as they move; Apply restarts the node with them. */
export const WhatIf = memo(function WhatIf({ current, classes }: { current: McOptions | null; classes: number }) {
  const target = useLessonTarget('slabs.whatif');
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const [o, setO] = useState<McOptions>(current ?? MC_DEFAULTS);
  const [layout, setLayout] = useState<{ classes: McClass[]; error: string | null } | null>(null);
  // The sliders start from the running node's options, and again whenever
  // the node restarts with others.
  const running = current ? JSON.stringify(current) : null;
  useEffect(() => {
    if (running) setO(JSON.parse(running) as McOptions);
  }, [running]);
  useEffect(() => {
    let live = true;
    void store.slabs({ what: 'layout', options: o }).then((r) => {
      if (live) setLayout(r);
    });
    return () => {
      live = false;
    };
  }, [store, o]);
  const set = (patch: Partial<McOptions>) => setO((x) => ({ ...x, ...patch }));
  const rows = layout?.classes ?? [];
  return (
    <section className="slabs-whatif" aria-labelledby="whatif-title" {...target} data-testid="slabs.whatif">
      <h3 id="whatif-title">{t('slabs.whatif.title')}</h3>
      <p className="dim small">{t('slabs.whatif.hint')}</p>
      <Slider id="slabs.f" label={t('slabs.whatif.f')} min={1.01} max={3} step={0.01} value={o.f}
        shown={o.f.toFixed(2)} onChange={(f) => set({ f: Math.round(f * 100) / 100 })} />
      <Slider id="slabs.n" label={t('slabs.whatif.n')} min={8} max={512} step={8} value={o.n}
        shown={String(o.n)} onChange={(n) => set({ n })} />
      <Slider id="slabs.I" label={t('slabs.whatif.I')} min={0} max={ITEM_MAX_STEPS.length - 1} step={1}
        value={nearest(ITEM_MAX_STEPS, o.I)} shown={mcSize(o.I)} onChange={(i) => set({ I: ITEM_MAX_STEPS[i] })} />
      <Slider id="slabs.m" label={t('slabs.whatif.m')} min={0} max={MEMORY_STEPS.length - 1} step={1}
        value={nearest(MEMORY_STEPS, o.m)} shown={String(o.m)} onChange={(i) => set({ m: MEMORY_STEPS[i] })} />
      {layout?.error ? <p className="bad" role="alert" data-testid="slabs.whatif.error">{layout.error}</p> : null}
      {rows.length ? (
        <>
          <p data-testid="slabs.whatif.result" data-classes={rows.length}>
            {t(classes ? 'slabs.whatif.result' : 'slabs.whatif.resultIdle', { n: rows.length, min: rows[0].chunkSize,
              max: rows[rows.length - 1].chunkSize, cur: classes })}
          </p>
          <p className="whatif-ladder" aria-label={t('slabs.whatif.ladder')}>
            {rows.map((r) => <span key={r.id} title={`${r.id}: ${r.chunkSize} × ${r.perslab}`}>{r.chunkSize}</span>)}
          </p>
        </>
      ) : null}
      <div className="slabs-row-head">
        <button type="button" className="btn primary small" disabled={!ready || !!layout?.error}
          data-testid="slabs.apply" onClick={() => void store.act({ kind: 'mcStart', options: o })}>
          {t('slabs.whatif.apply')}
        </button>
        <button type="button" className="btn small ghost" onClick={() => setO(MC_DEFAULTS)}>
          {t('slabs.whatif.reset')}
        </button>
      </div>
    </section>
  );
});
