import { memo } from 'react';
import type { KeyInspection } from '../../../../wasm/protocol';
import { useAppState, useFormatNumber, useT } from '../../app/hooks';
import type { MessageKey, Translate } from '../../i18n';
import { formatDuration } from '../../render/timeaxis';
import { thresholdsOf, ttlOf, typeName } from './model';
import { KeyPart as Kind } from '../../wasm-gen/seam';

function lengthText(t: Translate, reading: KeyInspection): string {
  const { info } = reading;
  const type = typeName(info.type);
  if (type === 'string' && info.encodingName === 'int') return t('inspect.len.int');
  const key = `inspect.len.${type}` as MessageKey;
  return t(key in LENGTH_KEYS ? key : 'inspect.len.stream', { n: info.length });
}

const LENGTH_KEYS: Record<string, true> = {
  'inspect.len.string': true, 'inspect.len.list': true, 'inspect.len.set': true,
  'inspect.len.zset': true, 'inspect.len.hash': true, 'inspect.len.stream': true,
};

function ttlText(t: Translate, reading: KeyInspection, clock: { unixMsAtZero: number; now: number } | null): string {
  const ttl = ttlOf(reading, clock);
  if (ttl.kind === 'none') return t('inspect.ttl.none');
  if (ttl.kind === 'set') return t('inspect.ttl.set');
  if (ttl.ms >= 0) return t('inspect.ttl.left', { t: formatDuration(ttl.ms * 1e6), ms: String(ttl.ms) });
  return t('inspect.ttl.expired', { t: formatDuration(-ttl.ms * 1e6) });
}

/** The facts a reader would ask redis-cli for: TYPE, OBJECT ENCODING, the
 *  length, MEMORY USAGE, the TTL, and the settings that convert it. */
export const KeyHeader = memo(function KeyHeader({ reading, db }: { reading: KeyInspection; db: number }) {
  const t = useT();
  const num = useFormatNumber();
  const unixMsAtZero = useAppState((s) => s.snapshot?.unixMsAtZero ?? null);
  const now = useAppState((s) => s.snapshot?.now ?? null);
  const clock = unixMsAtZero !== null && now !== null ? { unixMsAtZero, now } : null;
  const { info } = reading;
  const type = typeName(info.type);
  const limits = thresholdsOf(reading);
  const list = reading.parts.find((p) => p.kind === Kind.QUICKLIST);
  const fillDiffers = list !== undefined && list.b !== info.limitEntries;
  return (
    <div className="inspect-head" data-testid="inspect.header" data-type={type} data-encoding={info.encodingName}
      data-length={info.length} data-memory={info.memoryUsage}>
      <div className="inspect-keyname">
        <code data-testid="inspect.header.key">{reading.key}</code>
        <span className="dim">{t('inspect.db', { db })}</span>
      </div>
      <dl className="inspect-facts">
        <div><dt>{t('inspect.h.type')}</dt><dd data-testid="inspect.header.type">{type}</dd></div>
        <div><dt>{t('inspect.h.encoding')}</dt><dd className="inspect-enc" data-testid="inspect.header.encoding">{info.encodingName}</dd></div>
        <div><dt>{t('inspect.h.length')}</dt><dd>{lengthText(t, reading)}</dd></div>
        <div><dt>{t('inspect.h.memory')}</dt><dd data-testid="inspect.header.memory">{t('inspect.bytes', { n: info.memoryUsage })}</dd></div>
        <div><dt>{t('inspect.h.ttl')}</dt><dd data-testid="inspect.header.ttl">{ttlText(t, reading, clock)}</dd></div>
        <div className="inspect-limits">
          <dt>{t('inspect.h.limits')}</dt>
          <dd>
            {type === 'string' ? t('inspect.limit.string') : null}
            {type !== 'string' && limits.length === 0 ? t('inspect.limit.none') : null}
            {limits.map((l) => <code key={l.config} className="inspect-limit">{l.config} {num(l.value)}</code>)}
            {fillDiffers ? <span className="dim inspect-fill-note">{t('inspect.limit.fillNote', { fill: String(list.b) })}</span> : null}
          </dd>
        </div>
      </dl>
    </div>
  );
});
