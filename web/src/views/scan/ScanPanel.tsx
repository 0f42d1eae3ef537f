import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { Checker } from './Checker';
import { CursorView } from './CursorView';
import { KeysList } from './KeysList';
import { ScanControls } from './ScanControls';
import { VisitedList } from './VisitedList';

export const ScanPanel = memo(function ScanPanel() {
  const t = useT();
  const active = useAppState((s) => s.snapshot?.scan != null);
  const error = useAppState((s) => s.snapshot?.scan?.error ?? null);
  const target = useLessonTarget('scan');
  return (
    <section className="panel scan" aria-labelledby="scan-title" {...target}>
      <header className="panel-head scan-head">
        <h2 id="scan-title" title={t('scan.subtitle')}>{t('scan.title')}</h2>
        <ScanControls />
      </header>
      {error ? <p className="scan-error" role="alert">{t('scan.error', { msg: error })}</p> : null}
      {active ? (
        <div className="scan-grid">
          <CursorView />
          <Checker />
          <VisitedList />
          <KeysList />
        </div>
      ) : (
        <p className="panel-hint">{t('scan.subtitle')}. {t('scan.idle')}</p>
      )}
    </section>
  );
});
