import { memo } from 'react';
import { useT } from '../../app/hooks';
import { palette } from '../../render/strip';

const ITEMS = [
  { color: palette.keys, key: 'ht.legend.keys' },
  { color: palette.empty, key: 'ht.legend.empty' },
  { color: `repeating-linear-gradient(135deg, ${palette.moved} 0 3px, ${palette.background} 3px 6px)`, key: 'ht.legend.moved' },
  { color: palette.marker, key: 'ht.legend.rehashidx' },
  { color: palette.visited, key: 'ht.legend.visited' },
  { color: palette.last, key: 'ht.legend.last' },
] as const;

export const Legend = memo(function Legend() {
  const t = useT();
  return (
    <ul className="legend">
      {ITEMS.map((i) => (
        <li key={i.key}>
          <span className="swatch" style={{ background: i.color }} aria-hidden="true" />
          {t(i.key)}
        </li>
      ))}
    </ul>
  );
});
