import { memo } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { formatDuration } from '../../render/timeaxis';
import { designRem } from '../scale';
import { ViewCanvas } from './Canvas';
import { drawThreads } from './draw';
import { THREAD_LANES } from './model';

const LANE_PX = 22;

/** The main thread and the three bio threads, with their jobs over time
 *  and the time each has worked (the main thread's is the server's CPU). */
export const ThreadsStrip = memo(function ThreadsStrip({ view }: { view: AofView }) {
  const t = useT();
  const target = useLessonTarget('aof.threads');
  return (
    <div className="aof-threads" data-testid="aof.threads" {...target}>
      <h3>{t('aof.threads')}</h3>
      <p className="dim">{t('aof.threadsHint')}</p>
      <div className="aof-threads-grid">
        <ul>
          {THREAD_LANES.map((name) => {
            const th = view.threads.find((x) => x.name === name);
            return (
              <li key={name} style={{ height: designRem(LANE_PX) }} data-testid={`aof.thread.${name}`}>
                <code>{name}</code>{' '}
                <span className="dim">
                  {th ? [th.busy ? t('aof.thread.busy') : t('aof.thread.idle'), t('aof.thread.pending', { n: th.pending }),
                    t('aof.thread.done', { n: th.jobsDone }),
                    th.busyNs > 0 ? t('aof.thread.worked', { t: formatDuration(th.busyNs) }) : ''].filter(Boolean).join(' · ') : ''}
                </span>
              </li>
            );
          })}
        </ul>
        <ViewCanvas view={view} draw={drawThreads} height={LANE_PX * THREAD_LANES.length} testId="aof.threads.canvas"
          label={t('aof.threads')} />
      </div>
    </div>
  );
});
