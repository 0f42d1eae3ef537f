import { memo, useCallback } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { formatDuration } from '../render/timeaxis';

/** The recorded history as a scrubber: drag to go back to any virtual
 *  time; the marks are the engine's memory snapshots. */
export const HistoryBar = memo(function HistoryBar() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const history = useAppState((s) => s.snapshot?.history ?? null);
  const onInput = useCallback((v: number) => void store.seek(v), [store]);
  const toEnd = useCallback(() => void store.seek(history?.end ?? 0), [store, history]);
  const restore = useCallback(() => void store.restoreFuture(), [store]);
  if (!history) return null;
  const end = Math.max(history.end, 1);
  const rewound = !history.atEnd;
  const restoreText = history.aside
    ? t('history.restore', { n: history.aside.actions, t: formatDuration(history.aside.ns, 3) })
    : '';
  // Two parts: where the world is, then what the history keeps (at the
  // end) or what playing or acting does (rewound). Each part stays whole:
  // a narrow header puts the second under the first.
  const main = rewound
    ? t('history.rewound', { t: formatDuration(now, 6), end: formatDuration(history.end, 6) })
    : t('history.atEnd', { end: formatDuration(history.end, 4) });
  const more = rewound
    ? t('history.rewoundHint')
    : t('history.snapshots', { n: history.checkpoints.length, mb: (history.checkpointBytes / 1048576).toFixed(1) });
  const text = `${main} · ${more}`;
  return (
    <div className={`history ${rewound ? 'rewound' : ''}`} data-testid="history" data-at-end={rewound ? 'no' : 'yes'}
      title={`${text}\n${t('history.hint')}`}>
      <div className="history-main">
        <div className="history-track">
          <input type="range" min={0} max={end} step="any" value={Math.min(now, end)} disabled={!ready}
            data-testid="history.scrub" aria-label={t('history.scrub')} aria-valuetext={formatDuration(now, 6)}
            onChange={(e) => onInput(Number(e.target.value))} />
          <div className="history-marks" aria-hidden="true">
            {history.checkpoints.map((c) => <span key={c} style={{ left: `${(c / end) * 100}%` }} />)}
          </div>
        </div>
        <span className="history-line">
          {rewound ? (
            <button type="button" className="history-end" data-testid="history.end" disabled={!ready} onClick={toEnd}>
              {t('history.live')}
            </button>
          ) : null}
          <span className="history-aside" aria-live="polite">
            {history.aside ? (
              <button type="button" className="history-restore" data-testid="history.restore" disabled={!ready}
                onClick={restore} title={`${restoreText}\n${t('history.restoreHint')}`} aria-keyshortcuts="U"
                data-actions={history.aside.actions}>
                {restoreText}
              </button>
            ) : null}
          </span>
          <span className="history-text" data-testid="history.text">
            <span className="history-label">{rewound ? t('history.rewoundLabel') : t('history.label')}</span>{' '}
            <span className="history-part">{main}</span>{' '}
            <span className={rewound ? 'history-more' : 'history-part'}>{more}</span>
          </span>
        </span>
      </div>
    </div>
  );
});
