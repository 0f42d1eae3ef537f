import { memo, useLayoutEffect, useRef } from 'react';
import type { ConsoleEntry } from '../../../wasm/protocol';
import { useAppState, useT } from '../app/hooks';

const SOURCE_KEYS = {
  populate: 'console.source.populate',
  delete: 'console.source.delete',
  activeRehash: 'console.source.activeRehash',
  config: 'console.source.config',
} as const;

export const Transcript = memo(function Transcript() {
  const t = useT();
  const entries = useAppState((s) => s.console);
  const end = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [entries]);
  return (
    <div className="transcript" data-testid="console.transcript" aria-live="polite" role="log" tabIndex={0}
      aria-label={t('console.title')}>
      {entries.length === 0 ? <p className="transcript-empty">{t('console.empty')}</p> : null}
      {entries.map((e) => (
        <Entry key={e.seq} entry={e} />
      ))}
      <div ref={end} />
    </div>
  );
});

const Entry = memo(function Entry({ entry }: { entry: ConsoleEntry }) {
  const t = useT();
  const fromButton = entry.source !== 'console';
  return (
    <div className={`entry ${entry.status}`} data-testid="console.entry" data-status={entry.status}>
      {entry.reconnected ? <div className="entry-note">{t('console.reconnected')}</div> : null}
      <div className="entry-in">
        {fromButton ? (
          <span className="entry-badge">{t(SOURCE_KEYS[entry.source as keyof typeof SOURCE_KEYS])}</span>
        ) : (
          <span className="prompt">{entry.prompt}</span>
        )}
        <span className="entry-cmd">{entry.input}</span>
      </div>
      <Output entry={entry} />
    </div>
  );
});

function Output({ entry }: { entry: ConsoleEntry }) {
  const t = useT();
  if (entry.source === 'delete') {
    return <pre className="entry-out" data-testid="console.output">{t('console.deleted', { n: entry.deleted ?? 0 })}</pre>;
  }
  if (entry.status === 'noreply') return <pre className="entry-out dim">{t('console.noreply')}</pre>;
  return (
    <>
      <pre className="entry-out" data-testid="console.output">{entry.output}</pre>
      {entry.omittedLines > 0 ? <div className="entry-note">{t('console.omitted', { n: entry.omittedLines })}</div> : null}
    </>
  );
}
