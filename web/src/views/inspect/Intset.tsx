import { memo } from 'react';
import { useT } from '../../app/hooks';
import { MoreButton } from './Body';
import { hex, type IntsetView } from './model';

/** An intset: its 8-byte header (encoding, length), then its elements,
 *  each decoded from its little-endian bytes. */
export const Intset = memo(function Intset({ view, onMore }: { view: IntsetView; onMore: () => void }) {
  const t = useT();
  const h = view.header;
  return (
    <div className="is" data-testid="inspect.intset" data-width={view.width} data-length={view.length}>
      <h3 className="inspect-h3">
        {t('inspect.is.title', { bits: view.width * 8, w: view.width, n: view.length, bytes: view.size })}
      </h3>
      <ol className="lp-bytes">
        {h ? (
          <li className="lp-box lp-head" data-testid="inspect.intset.header">
            <span className="lp-segs">
              <span className="lp-seg seg-total">
                <code className="lp-hex">{hex(h.subarray(0, 4))}</code>
                <span className="lp-seg-label">encoding {view.width}</span>
              </span>
              <span className="lp-seg seg-count">
                <code className="lp-hex">{hex(h.subarray(4, 8))}</code>
                <span className="lp-seg-label">length {view.length}</span>
              </span>
            </span>
          </li>
        ) : <li className="dim">{t('inspect.notCopied')}</li>}
        {view.elements.map((e, i) => (
          <li key={i} className="lp-box is-elem" data-testid="inspect.intset.elem" data-value={e.value}>
            <span className="lp-segs">
              <span className="lp-seg seg-data">
                <code className="lp-hex">{hex(e.bytes)}</code>
                <span className="lp-seg-label">[{i}]</span>
              </span>
            </span>
            <span className="lp-value int">{e.value}</span>
          </li>
        ))}
        {view.more > 0 ? <li className="lp-box lp-gap"><MoreButton left={view.more} step={64} onMore={onMore} testId="inspect.intset.more" /></li> : null}
      </ol>
      <p className="inspect-legend">{t('inspect.is.legend')}</p>
    </div>
  );
});
