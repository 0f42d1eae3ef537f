import { memo } from 'react';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { AofControls } from './AofControls';
import { AofFile } from './AofFile';
import { AofLabs } from './AofLabs';
import { CrashControls } from './CrashControls';
import { OffsetsChart } from './OffsetsChart';
import { RecoveryReport } from './RecoveryReport';
import { StageBar } from './StageBar';
import { ThreadsStrip } from './ThreadsStrip';
import { useAofView } from './useAofView';
import './aof.css';

export const AofPanel = memo(function AofPanel() {
  const t = useT();
  const view = useAofView();
  const target = useLessonTarget('aof');
  return (
    <section className="panel aof" aria-labelledby="aof-title" data-testid="aof.panel"
      data-aof-state={view?.info?.state ?? ''} {...target}>
      <header className="panel-head">
        <h2 id="aof-title">{t('aof.title')}</h2>
        <span className="panel-sub">{t('aof.subtitle')}</span>
      </header>
      {view ? (
        <>
          <AofControls view={view} />
          <CrashControls view={view} />
          <RecoveryReport view={view} />
          {view.up && !view.appendonly ? <p className="dim" data-testid="aof.offNote">{t('aof.off')}</p> : null}
          {view.up && view.appendonly ? (
            <>
              <StageBar view={view} />
              <h3>{t('aof.chart')}</h3>
              {view.series.t.length > 1 ? (
                <OffsetsChart view={view} />
              ) : <p className="dim">{t('aof.chartEmpty')}</p>}
              <AofFile view={view} />
            </>
          ) : null}
          {view.up ? <ThreadsStrip view={view} /> : null}
          <AofLabs view={view} />
        </>
      ) : null}
    </section>
  );
});
