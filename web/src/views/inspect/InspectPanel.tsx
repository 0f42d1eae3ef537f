import { memo, useMemo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { Body } from './Body';
import { ChangeNote } from './ChangeNote';
import { useFollowed, useInspected } from './hooks';
import { KeyHeader } from './KeyHeader';
import { KeyPicker } from './KeyPicker';
import { partTree } from './model';
import './inspect.css';

/** The key inspector: a key picked by name (or from the hash table's
 *  buckets), and how the engine stores it, read again as the world moves. */
export const InspectPanel = memo(function InspectPanel() {
  const t = useT();
  const target = useLessonTarget('inspect');
  const key = useInspected();
  const followed = useFollowed(key);
  const db = useAppState((s) => s.db);
  const reading = followed?.reading ?? null;
  const tree = useMemo(() => (reading ? partTree(reading.parts) : null), [reading]);
  let message: { text: string; state: string } | null = null;
  if (key === null) message = { text: t('inspect.hint'), state: 'none' };
  else if (!followed) message = { text: t('inspect.loading', { key }), state: 'loading' };
  else if (!reading) message = { text: t('inspect.missing', { key, db }), state: 'missing' };
  return (
    <section className="panel inspect" aria-labelledby="inspect-title" data-testid="inspect.panel" {...target}>
      <header className="panel-head">
        <h2 id="inspect-title">{t('inspect.title')}</h2>
        <span className="panel-sub">{t('inspect.subtitle')}</span>
      </header>
      <KeyPicker current={key} />
      {message ? <p className="inspect-message" role="status" data-testid="inspect.message" data-state={message.state}>{message.text}</p> : null}
      {reading && tree ? (
        <>
          <KeyHeader reading={reading} db={db} />
          {followed?.change ? <ChangeNote change={followed.change} at={followed.changedAt} type={reading.info.type} /> : null}
          <Body key={`${reading.key}\n${db}`} reading={reading} tree={tree} />
        </>
      ) : null}
    </section>
  );
});
