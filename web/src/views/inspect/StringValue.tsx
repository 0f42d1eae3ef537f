import { memo } from 'react';
import { useT } from '../../app/hooks';
import { bytesText, hex, type StringView } from './model';

/** Bytes drawn per row of the hex dump. */
const ROW = 16;

/** A string: an int's value, or an embstr's or raw string's bytes in hex
 *  and as text, with one line on how Redis lays it out. */
export const StringValue = memo(function StringValue({ view }: { view: StringView }) {
  const t = useT();
  const b = view.bytes;
  const rows: Uint8Array[] = [];
  if (b) for (let i = 0; i < b.length; i += ROW) rows.push(b.subarray(i, i + ROW));
  return (
    <div className="str" data-testid="inspect.string" data-encoding={view.encoding}>
      {view.encoding === 'int' ? (
        <>
          <p className="str-int" data-testid="inspect.string.int">{view.int}</p>
          <p className="inspect-note">{t('inspect.str.int', { v: view.int ?? '' })}</p>
        </>
      ) : (
        <>
          <p className="inspect-note">
            {view.encoding === 'embstr'
              ? t('inspect.str.embstr', { o: view.objectBlock, s: view.sdsBlock })
              : t('inspect.str.raw', { o: view.objectBlock, s: view.sdsBlock })}
          </p>
          {view.hll ? (
            <p className="inspect-note inspect-todo" data-testid="inspect.notDrawn">
              {t('inspect.str.hll', { repr: t(view.hll === 'dense' ? 'inspect.str.dense' : 'inspect.str.sparse') })}
            </p>
          ) : null}
          {b ? (
            <div className="str-scroll">
              <table className="str-dump" data-testid="inspect.string.bytes">
                <thead>
                  <tr><th scope="col">{t('inspect.str.offset')}</th><th scope="col">{t('inspect.str.bytes')}</th><th scope="col">{t('inspect.str.text')}</th></tr>
                </thead>
                <tbody>
                  {rows.map((r, i) => (
                    <tr key={i}>
                      <th scope="row">{i * ROW}</th>
                      <td><code>{hex(r)}</code></td>
                      <td><code>{bytesText(r)}</code></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : <p className="dim">{t('inspect.notCopied')}</p>}
          {b && view.length > b.length ? <p className="dim">{t('inspect.more', { n: view.length - b.length })}</p> : null}
        </>
      )}
    </div>
  );
});
