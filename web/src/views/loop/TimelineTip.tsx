import { memo } from 'react';
import type { TimelineResult } from '../../../../wasm/protocol';
import { useT } from '../../app/hooks';
import type { LaneInfo, TimelineHit } from '../../render/timeline';
import { explainBin, explainItem } from './explain';
import { useLoop } from './hooks';

/** The explanation of what is under the pointer. */
export const TimelineTip = memo(function TimelineTip({ hit, result, lanes, x, y, width }: {
  hit: NonNullable<TimelineHit>;
  result: TimelineResult;
  lanes: LaneInfo[];
  x: number;
  y: number;
  /** Width of the timeline's box: the tip opens towards its middle. */
  width: number;
}) {
  const t = useT();
  const names = useLoop((s) => s.names);
  const lane = lanes.find((l) => l.node === hit.node);
  if (!lane) return null;
  let text;
  if (hit.mode === 'item') {
    const items = result.items.find((i) => i.node === hit.node);
    if (!items || hit.index >= items.count) return null;
    text = explainItem(t, items, hit.index, lane, names);
  } else {
    text = explainBin(t, result, hit.node, hit.column, lane);
  }
  return (
    <div className="loop-tip" role="tooltip" data-testid="loop.tip"
      style={x < width / 2 ? { left: Math.max(0, x - 24), top: y + 18 } : { right: Math.max(0, width - x - 24), top: y + 18 }}>
      <div>{text.title}</div>
      {text.hint ? <div className="dim">{text.hint}</div> : null}
    </div>
  );
});
