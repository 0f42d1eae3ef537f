import { memo, useMemo, useState } from 'react';
import type { KeyInspection } from '../../../../wasm/protocol';
import { useT } from '../../app/hooks';
import { Hashtable } from './Hashtable';
import { Intset } from './Intset';
import { Listpack } from './Listpack';
import { bodyOf, typeName, type PartTree } from './model';
import { Quicklist } from './Quicklist';
import { Skiplist } from './Skiplist';
import { StringValue } from './StringValue';

/** A "show more" button: how many more a click adds. */
export const MoreButton = memo(function MoreButton({ left, step, onMore, testId }: {
  left: number; step: number; onMore: () => void; testId: string;
}) {
  const t = useT();
  if (left <= 0) return null;
  return (
    <span className="inspect-more" data-testid={testId} data-left={left}>
      {t('inspect.more', { n: left })}
      <button type="button" className="btn small" onClick={onMore}>{t('inspect.showMore', { n: Math.min(step, left) })}</button>
    </span>
  );
});

/** How the value is stored, drawn by its encoding. */
export const Body = memo(function Body({ reading, tree }: { reading: KeyInspection; tree: PartTree }) {
  const t = useT();
  const [more, setMore] = useState(0);
  const body = useMemo(() => bodyOf(reading, tree, more), [reading, tree, more]);
  const onMore = () => setMore((m) => m + 64);
  const cut = reading.info.totalParts > reading.info.nparts;
  return (
    <div className="inspect-body" data-testid="inspect.body" data-kind={body.kind}>
      {body.kind === 'string' ? <StringValue view={body.view} /> : null}
      {body.kind === 'quicklist' ? <Quicklist reading={reading} tree={tree} view={body.view} onMore={onMore} /> : null}
      {body.kind === 'listpack' ? <Listpack view={body.view} owner={body.owner} onMore={onMore} /> : null}
      {body.kind === 'intset' ? <Intset view={body.view} onMore={onMore} /> : null}
      {body.kind === 'hashtable' ? <Hashtable view={body.view} /> : null}
      {body.kind === 'skiplist' ? <Skiplist view={body.view} dict={body.dict} onMore={onMore} /> : null}
      {body.kind === 'none' ? (
        <p className="inspect-note" data-testid="inspect.notDrawn">
          {typeName(reading.info.type) === 'stream' ? t('inspect.stream') : t('inspect.none')}
        </p>
      ) : null}
      {cut ? <p className="dim inspect-cut">{t('inspect.cut', { n: reading.info.nparts })}</p> : null}
    </div>
  );
});
