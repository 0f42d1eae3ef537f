import { memo, useEffect, useState } from 'react';
import type { WorkloadPreset } from '../../../../wasm/protocol';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { LabsPanel } from './LabsPanel';
import { PRESETS, WorkloadForm } from './WorkloadForm';

type Tab = 'labs' | WorkloadPreset;
const TABS: Tab[] = ['labs', ...PRESETS];

/** What to run against the server: a lab, or one client program. */
export const RunPanel = memo(function RunPanel() {
  const t = useT();
  const target = useLessonTarget('loop.run');
  const [tab, setTab] = useState<Tab>('labs');
  // A lesson step that points at the labs shows them, whatever tab was
  // picked before.
  const labs = useLessonTarget('loop.labs')['data-lesson-focus'];
  useEffect(() => {
    if (labs === 'on') setTab('labs');
  }, [labs]);
  return (
    <section className="panel loop-run" aria-labelledby="run-title" {...target}>
      <header className="panel-head run-head">
        <h2 id="run-title">{t('run.title')}</h2>
        <div className="segmented run-tabs" role="tablist" aria-label={t('run.title')}>
          {TABS.map((p) => (
            <button key={p} type="button" role="tab" aria-selected={tab === p}
              data-testid={`run.tab.${p}`} onClick={() => setTab(p)}>
              {p === 'labs' ? t('lab.title') : t(`wl.preset.${p}`)}
            </button>
          ))}
        </div>
      </header>
      {tab === 'labs' ? <LabsPanel /> : <WorkloadForm key={tab} preset={tab} />}
    </section>
  );
});
