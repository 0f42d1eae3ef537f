import { memo } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useReady, useStoreApi, useT } from '../../app/hooks';
import { CrashAtPicker } from './CrashAtPicker';
import { useLessonTarget } from '../lesson/hooks';

export const CrashControls = memo(function CrashControls({ view }: { view: AofView }) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const target = useLessonTarget('aof.crash');
  return (
    <div className="aof-crash" {...target}>
      {view.up ? (
        <>
          <button type="button" className="danger" data-testid="aof.crash.process" disabled={!ready}
            title={t('aof.crash.processHint')} onClick={() => void store.act({ kind: 'crash', mode: 'process' })}>
            {t('aof.crash.process')}
          </button>
          <button type="button" className="danger" data-testid="aof.crash.power" disabled={!ready}
            title={t('aof.crash.powerHint')} onClick={() => void store.act({ kind: 'crash', mode: 'power' })}>
            {t('aof.crash.power')}
          </button>
          <span className="dim" data-testid="aof.acked">{t('aof.acked', { n: view.acked, writes: view.writes })}</span>
          <CrashAtPicker view={view} />
        </>
      ) : (
        <>
          <p className="warn" data-testid="aof.down">{t('aof.down')}</p>
          <button type="button" className="btn primary" data-testid="aof.restart" disabled={!ready}
            onClick={() => void store.act({ kind: 'restart' })}>{t('aof.restart')}</button>
        </>
      )}
    </div>
  );
});
