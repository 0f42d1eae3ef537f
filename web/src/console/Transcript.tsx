import { Fragment, memo, useLayoutEffect, useRef } from 'react';
import type { ConsoleEntry } from '../../../wasm/protocol';
import { useAppState, useT } from '../app/hooks';
import type { MessageKey } from '../i18n';
import type { AppState } from '../model/store';
import { persistNote } from './persistNote';

const SOURCE_KEYS = {
  populate: 'console.source.populate',
  delete: 'console.source.delete',
  activeRehash: 'console.source.activeRehash',
  config: 'console.source.config',
  server: 'console.source.server',
  persist: 'console.source.persist',
  second: 'console.source.second',
} as const satisfies Record<Exclude<ConsoleEntry['source'], 'console'>, MessageKey>;

/** The log entries the world has applied: a rewound world's transcript
 *  shows what comes after as its recorded future, not as done. */
function appliedOf(s: AppState): number {
  const h = s.snapshot?.history;
  return !h || h.atEnd ? Infinity : h.applied;
}

const isFuture = (e: ConsoleEntry, applied: number) => e.entry !== undefined && e.entry >= applied;

export const Transcript = memo(function Transcript() {
  const t = useT();
  const entries = useAppState((s) => s.console);
  const blocked = useAppState((s) => s.blocked);
  const second = useAppState((s) => s.second);
  const applied = useAppState(appliedOf);
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    // The newest entry in sight, by scrolling the transcript alone: the
    // page stays where the reader has it (a phone's page opens at its top).
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [entries, blocked, second]);
  const firstFuture = entries.findIndex((e) => isFuture(e, applied));
  return (
    <div className="transcript" ref={box} data-testid="console.transcript" aria-live="polite" role="log"
      tabIndex={entries.length ? 0 : undefined}
      aria-label={t('console.title')}>
      {entries.length === 0 ? <p className="transcript-empty">{t('console.empty')}</p> : null}
      {entries.map((e, i) => (
        <Fragment key={e.seq}>
          {i === firstFuture ? (
            <div className="transcript-future" data-testid="console.future">{t('console.future')}</div>
          ) : null}
          <Entry entry={e} future={firstFuture >= 0 && i >= firstFuture} />
        </Fragment>
      ))}
      {/* The command waiting for its busy script, and the second
          connection's lines answered meanwhile (its answer brings them
          into the transcript). */}
      {blocked ? (
        <div className="entry waiting" data-testid="console.waiting">
          <div className="entry-in"><span className="prompt">{blocked.prompt}</span><span className="entry-cmd">{blocked.text}</span></div>
          <pre className="entry-out dim">{t('console.waitingScript')}</pre>
        </div>
      ) : null}
      {blocked ? second.map((e) => <Entry key={e.seq} entry={e} future={false} />) : null}
    </div>
  );
});

const Entry = memo(function Entry({ entry, future }: { entry: ConsoleEntry; future: boolean }) {
  const t = useT();
  const fromButton = entry.source !== 'console';
  return (
    <div className={`entry ${entry.status}${future ? ' future' : ''}`} data-testid="console.entry"
      data-status={entry.status} data-future={future ? 'yes' : undefined}>
      {entry.reconnected ? <div className="entry-note">{t('console.reconnected')}</div> : null}
      {/* What arrived with no command typed (a subscription's messages)
          has no input line, as in redis-cli. */}
      {!fromButton && !entry.prompt && !entry.input ? null : <div className="entry-in">
        {fromButton ? (
          <span className="entry-badge" data-testid="console.badge">
            {t(SOURCE_KEYS[entry.source as keyof typeof SOURCE_KEYS])}
          </span>
        ) : (
          <span className="prompt">{entry.prompt}</span>
        )}
        <span className="entry-cmd">{entry.source === 'persist' ? persistNote(t, entry.input) : entry.input}</span>
      </div>}
      <Output entry={entry} />
    </div>
  );
});

function Output({ entry }: { entry: ConsoleEntry }) {
  const t = useT();
  if (entry.source === 'delete') {
    return <pre className="entry-out" data-testid="console.output">{t('console.deleted', { n: entry.deleted ?? 0 })}</pre>;
  }
  if (entry.source === 'populate' && entry.written !== undefined) {
    // Keys added by MSET: how many in how many commands, and the refusal
    // that stopped them early, if one did.
    const written = t('console.written', { n: entry.written, c: entry.commands ?? 0 });
    if (entry.status === 'ok') return <pre className="entry-out" data-testid="console.output">{written}</pre>;
    return (
      <>
        <pre className="entry-out" data-testid="console.output">{entry.output || t('console.noreply')}</pre>
        <div className="entry-note">{written}</div>
      </>
    );
  }
  if (entry.status === 'noreply') return <pre className="entry-out dim">{t('console.noreply')}</pre>;
  return (
    <>
      <pre className="entry-out" data-testid="console.output">{entry.output}</pre>
      {entry.omittedLines > 0 ? <div className="entry-note">{t('console.omitted', { n: entry.omittedLines })}</div> : null}
    </>
  );
}
