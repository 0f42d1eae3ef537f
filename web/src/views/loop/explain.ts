// Words for what the timeline shows: one item of the trace, or one column
// of sums. Pure functions of the item and a translation function.
import {
  TIMELINE_BIN_FIELDS, TimelineBin as B, TimelineItem as K, errorCodeText, type LaneItems, type TimelineResult,
} from '../../../../wasm/protocol';
import type { Translate } from '../../i18n';
import { formatDuration } from '../../render/timeaxis';
import type { LaneInfo } from '../../render/timeline';

export interface Explanation {
  title: string;
  hint: string | null;
}

/** Explains item i of a lane. */
export function explainItem(t: Translate, it: LaneItems, i: number, lane: LaneInfo,
  names: Record<number, string>): Explanation {
  const t0 = it.t0[i];
  const t1 = it.t1[i];
  const d = formatDuration(t1 - t0);
  const fd = String(it.fd[i]);
  const n = it.n[i];
  const server = lane.role === 'server';
  switch (it.kind[i]) {
    case K.ITER:
      return {
        title: t('tip.iteration', { n: String(it.x[i]), host: lane.label, t0: formatDuration(t0, 9), d }),
        hint: t('tip.iterationHint'),
      };
    case K.POLL:
      return { title: t('tip.poll', { n, d }), hint: t('tip.pollHint') };
    case K.READ:
      return server
        ? { title: t('tip.read', { fd, bytes: n, d }), hint: t('tip.readHint') }
        : { title: t('tip.clientRead', { fd, bytes: n, d }), hint: null };
    case K.WRITE:
      return server
        ? { title: t('tip.write', { fd, bytes: n, d }), hint: t('tip.writeHint') }
        : { title: t('tip.clientWrite', { fd, bytes: n, d }), hint: null };
    case K.EXEC:
      return {
        title: t('tip.exec', { cmd: names[it.x[i]] ?? `#${it.x[i]}`, fd, argc: n, t1: formatDuration(t1, 9) }),
        hint: t('tip.execHint'),
      };
    case K.CRON:
      return { title: t('tip.cron', { d }), hint: t('tip.cronHint') };
    case K.BEFORE_SLEEP:
      return { title: t('tip.beforeSleep', { d }), hint: t('tip.beforeSleepHint') };
    case K.SEND:
      return { title: t('tip.send', { n, bytes: it.x[i], fd }), hint: null };
    case K.DONE:
      return { title: t('tip.done', { n, fd, lat: formatDuration(it.x[i]) }), hint: null };
    case K.REFUSED:
      return {
        title: t('tip.refused', { cmd: names[it.x[i]] ?? `#${it.x[i]}`, fd, code: errorCodeText(n) }),
        hint: errorCodeText(n) === 'BUSY' ? t('tip.refusedHint') : null,
      };
    case K.ERRORS:
      return { title: t('tip.errors', { n, fd, code: errorCodeText(it.x[i]) }), hint: null };
    default:
      return { title: t('tip.file', { bytes: n, d }), hint: null };
  }
}

/** Explains one column of sums. */
export function explainBin(t: Translate, r: TimelineResult, node: number, column: number, lane: LaneInfo): Explanation {
  const lanes = r.bins.find((b) => b.node === node);
  const colNs = (r.t1 - r.t0) / r.px;
  const from = r.t0 + column * colNs;
  const v = (f: number) => (lanes ? Math.round(lanes.data[column * TIMELINE_BIN_FIELDS + f]) : 0);
  const busy = Math.min(100, Math.round((v(B.BUSY) / colNs) * 100));
  const common = {
    host: lane.label, t0: formatDuration(from, 6), t1: formatDuration(from + colNs, 6), busy, iters: v(B.ITERS),
  };
  const refused = v(B.REFUSED);
  const title = lane.role === 'server'
    ? t('tip.bin', { ...common, cmds: v(B.CMDS), reads: v(B.READS), writes: v(B.WRITES) })
      + (refused ? t('tip.binRefused', { n: refused }) : '')
    : t('tip.binClient', { ...common, sends: v(B.SENDS), dones: v(B.DONES) })
      + (refused ? t('tip.binErrors', { n: refused }) : '');
  return { title, hint: null };
}
