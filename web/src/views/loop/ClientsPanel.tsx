import { memo } from 'react';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { ChartsPanel } from './ChartsPanel';
import { WorkloadList } from './WorkloadList';

/** The client programs with what the engine says of them, and the charts
 *  of throughput and latency (colored as the list). */
export const ClientsPanel = memo(function ClientsPanel() {
  const t = useT();
  const target = useLessonTarget('loop.clients');
  return (
    <section className="panel loop-clients" aria-labelledby="clients-title" {...target}>
      <header className="panel-head">
        <h2 id="clients-title">{t('wl.title')}</h2>
        <span className="panel-sub">{t('wl.sub')}</span>
      </header>
      <WorkloadList />
      <ChartsPanel />
    </section>
  );
});
