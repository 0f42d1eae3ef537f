import { memo, useSyncExternalStore } from 'react';
import { useT } from './hooks';
import { PANES, getPane, setPane, subscribePane, type Pane } from './pane';

export function usePane(): Pane {
  return useSyncExternalStore(subscribePane, getPane);
}

/** Chooses what the views column shows, on one row: short names, the full
 *  ones as their titles. */
export const ViewTabs = memo(function ViewTabs() {
  const t = useT();
  const pane = usePane();
  return (
    <div className="view-tabs" role="tablist">
      {PANES.map((p) => (
        <button key={p} type="button" role="tab" aria-selected={pane === p} data-testid={`views.tab.${p}`}
          className={`btn ${pane === p ? 'on' : ''}`} title={t(`views.tab.${p}`)} onClick={() => setPane(p)}>
          {t(`views.short.${p}`)}
        </button>
      ))}
    </div>
  );
});
