import { memo } from 'react';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

/** How the node differs from memcached 1.6.18: the main points in the
 *  page's language, and the engine's own note (gkMemcachedNotes). */
export const Notes = memo(function Notes({ engineNote }: { engineNote: string }) {
  const target = useLessonTarget('slabs.notes');
  const t = useT();
  return (
    <aside className="slabs-notes" aria-labelledby="slabs-notes-title" {...target} data-testid="slabs.notes">
      <h3 id="slabs-notes-title">{t('slabs.notes.title')}</h3>
      <ul>
        <li>{t('slabs.notes.lru')}</li>
        <li>{t('slabs.notes.rebalance')}</li>
        <li>{t('slabs.notes.time')}</li>
      </ul>
      <details>
        <summary>{t('slabs.notes.engine')}</summary>
        <p lang="en" className="small">{engineNote}</p>
      </details>
    </aside>
  );
});
