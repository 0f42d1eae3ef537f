import { memo, useCallback } from 'react';
import { CrashDialog } from '../shell/CrashDialog';
import { ShareNotice } from '../shell/ShareNotice';
import { ShortcutsDialog } from '../shell/ShortcutsDialog';
import { StatusBar } from '../shell/StatusBar';
import { TimeControls } from '../shell/TimeControls';
import { AofPanel } from '../views/aof/AofPanel';
import { HashTablePanel } from '../views/ht/HashTablePanel';
import { InspectPanel } from '../views/inspect/InspectPanel';
import { LoopViews } from '../views/loop/LoopViews';
import { ScanPanel } from '../views/scan/ScanPanel';
import { SlabsPanel } from '../views/slabs/SlabsPanel';
import { useShareApi } from './contexts';
import { useT } from './hooks';
import type { Pane } from './pane';
import { ExternalIcon } from '../shell/icons';

/** The page inside an iframe: one view and its controls, the time
 *  controls, and a way to open the same state in the full app. */
export const EmbedApp = memo(function EmbedApp({ view }: { view: Pane }) {
  const t = useT();
  const share = useShareApi();
  const onOpen = useCallback(async () => {
    const { url } = await share.link('', { ...share.current(), pane: view });
    window.open(url, '_blank', 'noopener');
  }, [share, view]);
  return (
    <div className="app embed" data-testid="embed" data-view={view}>
      <header className="header embed-head">
        <span className="brand-name embed-name">glasskv</span>
        <TimeControls />
        <button type="button" className="btn ghost small embed-open" data-testid="embed.open" onClick={() => void onOpen()}>
          {t('embed.open')} <ExternalIcon />
        </button>
      </header>
      <StatusBar />
      <ShareNotice />
      <main className="embed-view" aria-label={t('embed.label', { view: t(`views.tab.${view}`) })}>
        {view === 'keys' ? (
          <>
            <HashTablePanel />
            <ScanPanel />
          </>
        ) : view === 'inspect' ? <InspectPanel /> : view === 'aof' ? <AofPanel />
          : view === 'slabs' ? <SlabsPanel /> : <LoopViews />}
      </main>
      <CrashDialog />
      <ShortcutsDialog />
    </div>
  );
});
