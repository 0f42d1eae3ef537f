import { memo, type ReactNode } from 'react';
import { useT } from '../../app/hooks';
import type { Translate } from '../../i18n';
import { MoreButton } from './Body';
import { hex, lpKind, type ListpackView, type LpEntryView } from './model';

/** Data bytes drawn per entry; the rest are counted. */
const DATA_SHOWN = 6;
/** Characters of a string's text drawn per entry. */
const TEXT_SHOWN = 40;

export function kindName(t: Translate, kind: number): string {
  const k = lpKind(kind);
  if (k.str) return t('inspect.lp.str', { bits: k.bits });
  return t(k.unsigned ? 'inspect.lp.uint' : 'inspect.lp.int', { bits: k.bits });
}

function valueText(e: LpEntryView): string {
  if (e.int !== null) return e.int;
  if (e.text === null) return '';
  return e.text.length > TEXT_SHOWN ? `"${e.text.slice(0, TEXT_SHOWN)}…"` : `"${e.text}"`;
}

/** One segment of an entry's bytes: its hex and what it is. */
function Seg({ cls, bytes, label, extra, testId }: {
  cls: string; bytes: Uint8Array | null; label: string; extra?: ReactNode; testId: string;
}) {
  return (
    <span className={`lp-seg ${cls}`}>
      <code className="lp-hex" data-testid={testId}>{bytes ? hex(bytes) : '··'}{extra}</code>
      <span className="lp-seg-label">{label}</span>
    </span>
  );
}

const Entry = memo(function Entry({ e }: { e: LpEntryView }) {
  const t = useT();
  const data = e.data && e.data.length > DATA_SHOWN ? e.data.subarray(0, DATA_SHOWN) : e.data;
  const cutBytes = e.data ? e.data.length - (data?.length ?? 0) : 0;
  const kind = kindName(t, e.kind);
  const value = valueText(e);
  return (
    <li className={`lp-box lp-entry role-${e.role}`} data-testid="inspect.lp.entry" data-index={e.index}
      data-at={e.at} data-kind={e.kind}>
      <span className="lp-entry-top">
        <span className="lp-role">{t(`inspect.role.${e.role}`)} {e.role === 'element' ? e.index : Math.floor(e.index / 2)}</span>
        <span className="lp-kind">{kind}</span>
      </span>
      <span className="lp-segs">
        <Seg cls="seg-enc" bytes={e.enc} label={t('inspect.lp.enc')} testId="inspect.lp.enc" />
        {e.dataLen > 0 ? (
          <Seg cls="seg-data" bytes={data} label={t('inspect.lp.data')} testId="inspect.lp.data"
            extra={cutBytes > 0 ? <span className="dim"> +{cutBytes}</span> : null} />
        ) : null}
        <Seg cls="seg-back" bytes={e.back} label={t('inspect.lp.back')} testId="inspect.lp.back" />
      </span>
      <span className="lp-entry-bottom">
        <span className={`lp-value ${e.int !== null ? 'int' : 'str'}`} data-testid="inspect.lp.value">{value}</span>
        {e.backlen !== null ? <span className="lp-backlen">{t('inspect.lp.backlenIs', { n: e.backlen })}</span> : null}
      </span>
    </li>
  );
});

/** A listpack: its 6-byte header, each entry split into its encoding,
 *  data and backlen bytes with the value they hold, and the FF that ends
 *  it. A hash's or a zset's entries go in pairs. */
export const Listpack = memo(function Listpack({ view, owner, onMore, legend = true, node = null }: {
  view: ListpackView; owner: 'list' | 'hash' | 'zset'; onMore: () => void; legend?: boolean;
  /** The quicklist node (from 1) it belongs to, if any: its title says so. */
  node?: number | null;
}) {
  const t = useT();
  const paired = owner !== 'list';
  const items: ReactNode[] = [];
  for (let i = 0; i < view.entries.length; i += paired ? 2 : 1) {
    const e = view.entries[i];
    if (!paired) {
      items.push(<Entry key={i} e={e} />);
      continue;
    }
    const f = view.entries[i + 1];
    items.push(
      <li key={i} className="lp-pair" data-testid="inspect.lp.pair">
        <ol className="lp-pair-list">
          <Entry e={e} />
          {f ? <Entry e={f} /> : null}
        </ol>
      </li>,
    );
  }
  const h = view.header;
  return (
    <div className="lp" data-testid="inspect.lp" data-part={view.part} data-size={view.size} data-length={view.length}>
      {node === null
        ? <h3 className="inspect-h3">{t('inspect.lp.title', { bytes: view.size, n: view.length })}</h3>
        : <h4 className="inspect-h4">{t('inspect.ql.node', { i: node })}: {t('inspect.lp.title', { bytes: view.size, n: view.length })}</h4>}
      {paired ? <p className="inspect-note">{t(owner === 'hash' ? 'inspect.pairs.hash' : 'inspect.pairs.zset')}</p> : null}
      {!view.copied ? <p className="dim">{t('inspect.notCopied')}</p> : null}
      <ol className="lp-bytes">
        {h ? (
          <li className="lp-box lp-head" data-testid="inspect.lp.header">
            <span className="lp-entry-top"><span className="lp-role">{t('inspect.lp.header')}</span></span>
            <span className="lp-segs">
              <span className="lp-seg seg-total">
                <code className="lp-hex" data-testid="inspect.lp.header.total">{hex(h.subarray(0, 4))}</code>
                <span className="lp-seg-label">{t('inspect.lp.total', { n: view.totalBytes ?? 0 })}</span>
              </span>
              <span className="lp-seg seg-count">
                <code className="lp-hex" data-testid="inspect.lp.header.count">{hex(h.subarray(4, 6))}</code>
                <span className="lp-seg-label">
                  {view.count === 65535 ? t('inspect.lp.countUnknown') : t('inspect.lp.count', { n: view.count ?? 0 })}
                </span>
              </span>
            </span>
          </li>
        ) : null}
        {items}
        {view.more > 0 ? (
          <li className="lp-box lp-gap"><MoreButton left={view.more} step={64} onMore={onMore} testId="inspect.lp.more" /></li>
        ) : null}
        {view.end !== null ? (
          <li className="lp-box lp-end" data-testid="inspect.lp.end">
            <span className="lp-segs">
              <span className="lp-seg seg-end">
                <code className="lp-hex">{hex([view.end])}</code>
                <span className="lp-seg-label">{t('inspect.lp.end')}</span>
              </span>
            </span>
          </li>
        ) : null}
      </ol>
      {legend ? <p className="inspect-legend">{t('inspect.lp.legend')}</p> : null}
    </div>
  );
});
