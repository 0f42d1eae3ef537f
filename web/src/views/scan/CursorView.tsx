import { memo, useMemo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { cursorBits, type CursorBits } from '../../model/cursor';
import { useLessonTarget } from '../lesson/hooks';

/** The cursor the next call will send, in decimal and in binary against
 *  the tables' masks, with its bits reversed. */
export const CursorView = memo(function CursorView() {
  const t = useT();
  const cursor = useAppState((s) => s.snapshot?.scan?.cursor ?? '0');
  const done = useAppState((s) => s.snapshot?.scan?.done ?? false);
  const s0 = useAppState((s) => s.snapshot?.dict?.tables[0]?.size ?? 0);
  const s1 = useAppState((s) => s.snapshot?.dict?.tables[1]?.size ?? 0);
  const target = useLessonTarget('scan.cursor');
  const bits = useMemo(() => cursorBits(cursor, [s0, s1]), [cursor, s0, s1]);
  const rehashing = s0 > 0 && s1 > 0;
  const small = s1 > 0 && s1 < s0 ? 1 : 0;
  return (
    <div className="card cursor-card" {...target}>
      <div className="cursor-top">
        <span className="card-label">{done ? t('scan.cursor') : t('scan.next')}</span>
        <span className="cursor-value" data-testid="scan.cursor">{cursor}</span>
      </div>
      {done ? <p className="scan-done" data-testid="scan.done">{t('scan.done')}</p> : null}
      <BitRow label={t('scan.bits')} bits={bits.bits} info={bits} reversed={false} />
      <BitRow label={t('scan.reversed')} bits={bits.reversed} info={bits} reversed />
      <div className="mask-notes">
        {[0, 1].map((i) => (bits.buckets[i] === null ? null : (
          <span key={i} className={`mask-note ${rehashing && i !== small ? 'large' : 'small'}`}>
            {t('scan.mask', { i, bits: Math.log2(i === 0 ? s0 : s1) })} → {bits.buckets[i]}
          </span>
        )))}
      </div>
      <p className="card-hint">{t('scan.reversedHint')}</p>
    </div>
  );
});

interface BitRowProps {
  label: string;
  bits: number[];
  info: CursorBits;
  reversed: boolean;
}

const BitRow = memo(function BitRow({ label, bits, info, reversed }: BitRowProps) {
  const width = bits.length;
  return (
    <div className="bit-row">
      <span className="bit-label">{label}</span>
      <span className="bits" aria-label={`${label}: ${bits.join('')}`}>
        {bits.map((b, i) => {
          const pos = reversed ? i : width - 1 - i;
          const kind = pos < info.smallBits ? 'small' : pos < info.largeBits ? 'large' : 'high';
          return (
            <span key={i} className={`bit ${kind} ${b ? 'one' : 'zero'}`}>
              {b}
            </span>
          );
        })}
      </span>
    </div>
  );
});
