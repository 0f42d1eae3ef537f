import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { Checker } from './Checker';
import { CursorView } from './CursorView';
import { KeysList } from './KeysList';
import { ScanControls } from './ScanControls';
import { VisitedList } from './VisitedList';

export const ScanPanel = memo(function ScanPanel() {
  const t = useT();
  const active = useAppState((s) => s.snapshot?.scan != null);
  const error = useAppState((s) => s.snapshot?.scan?.error ?? null);
  return (
    <section className="panel scan" aria-labelledby="scan-title">
      <header className="panel-head">
        <h2 id="scan-title">{t('scan.title')}</h2>
        <span className="panel-sub">{t('scan.subtitle')}</span>
      </header>
      <ScanControls />
      {error ? <p className="scan-error" role="alert">{t('scan.error', { msg: error })}</p> : null}
      {active ? (
        <div className="scan-grid">
          <CursorView />
          <Checker />
          <VisitedList />
          <KeysList />
        </div>
      ) : (
        <p className="panel-hint">{t('scan.idle')}</p>
      )}
    </section>
  );
});
