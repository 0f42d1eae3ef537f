import { memo } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { DISK_PRESETS } from '../../../../wasm/aofprotocol';
import { useReady, useStoreApi, useT } from '../../app/hooks';
import { formatBytes } from '../../model/format';
import { useLessonTarget } from '../lesson/hooks';

const POLICIES = ['always', 'everysec', 'no'] as const;
/** Free space left by "Fill the disk": less than one command. */
const FULL_BYTES = 8;
const PLENTY_BYTES = 100 * 1024 ** 3;
const AOF_DIR = 'appendonlydir';

export const AofControls = memo(function AofControls({ view }: { view: AofView }) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady() && view.up;
  // While the server is down the controls show what a restart brings it
  // back with: the appendonly and appendfsync it had when it died.
  const down = !view.up && view.crash !== null;
  const appendonly = down ? view.crash!.appendonly : view.appendonly;
  const said = down ? view.crash!.fsync : view.info?.fsync;
  const policy = POLICIES.find((x) => x === said) ?? 'everysec';
  const target = useLessonTarget('aof.controls');
  return (
    <div className="aof-controls" {...target}>
      <label>
        <input type="checkbox" data-testid="aof.appendonly" checked={appendonly} disabled={!ready}
          onChange={(e) => void store.act({ kind: 'config', name: 'appendonly', value: e.target.checked ? 'yes' : 'no' })} />
        {t('aof.appendonly')}
      </label>
      <label>
        <span>{t('aof.fsync')}</span>
        <select data-testid="aof.fsync" value={policy} disabled={!ready}
          onChange={(e) => void store.act({ kind: 'config', name: 'appendfsync', value: e.target.value })}>
          {POLICIES.map((p) => <option key={p} value={p}>{p}</option>)}
        </select>
      </label>
      <label>
        <span>{t('aof.disk')}</span>
        <select data-testid="aof.disk" value={view.disk?.preset ?? 'ssd'} disabled={!useReady()}
          onChange={(e) => void store.act({ kind: 'disk', preset: e.target.value })}>
          {DISK_PRESETS.map((p) => <option key={p} value={p}>{p}</option>)}
        </select>
      </label>
      <span className="dim" data-testid="aof.free">{t('aof.diskFree')}: {formatBytes(view.disk?.freeBytes ?? 0)}</span>
      <button type="button" className="btn small" data-testid="aof.diskFull" disabled={!useReady()}
        onClick={() => void store.act({ kind: 'diskFree', bytes: FULL_BYTES })}>{t('aof.diskFull')}</button>
      <button type="button" className="btn small" data-testid="aof.diskFreeUp" disabled={!useReady()}
        onClick={() => void store.act({ kind: 'diskFree', bytes: PLENTY_BYTES })}>{t('aof.diskFreeUp')}</button>
      <label title={t('aof.readOnlyHint')}>
        <input type="checkbox" data-testid="aof.readOnly" checked={view.readOnly.includes(AOF_DIR)}
          disabled={!useReady()}
          onChange={(e) => void store.act({ kind: 'diskReadOnly', dir: AOF_DIR, readonly: e.target.checked })} />
        {t('aof.readOnly')}
      </label>
      {view.info && !view.info.lastWriteOk
        ? <p className="warn aof-policy" data-testid="aof.misconf">{t('aof.misconfHint')}</p> : null}
      {down ? <p className="dim aof-policy" data-testid="aof.downConfig">{t('aof.downConfig')}</p> : null}
      <p className="dim aof-policy">{t(`aof.fsync.${policy}`)}</p>
    </div>
  );
});
