// The AOF labs' figures as the panel shows them: gkLabRun's JSON read into
// rows of fields, and the words that explain each run. Pure, no React.
import type { AofLabName } from '../../../../wasm/aofprotocol';
import type { MessageKey, Params } from '../../i18n';

export type LabValue = string | number | boolean;

/** One run of a lab: its name and its figures, nested objects flattened
 *  ("power_loss.max_lost_acknowledged"). */
export interface LabRunFigures {
  name: string;
  fields: Record<string, LabValue>;
}

function flatten(o: Record<string, unknown>, prefix: string, out: Record<string, LabValue>): void {
  for (const [k, v] of Object.entries(o)) {
    if (k === 'name' && !prefix) continue;
    if (v !== null && typeof v === 'object') flatten(v as Record<string, unknown>, `${prefix}${k}.`, out);
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[prefix + k] = v;
  }
}

export function parseLab(json: string): LabRunFigures[] {
  const doc = JSON.parse(json) as { runs?: Record<string, unknown>[] };
  return (doc.runs ?? []).map((r) => {
    const fields: Record<string, LabValue> = {};
    flatten(r, '', fields);
    return { name: String(r.name ?? ''), fields };
  });
}

/** Every field of the runs, in the order they first appear. */
export function fieldsOf(runs: readonly LabRunFigures[]): string[] {
  const seen = new Set<string>();
  for (const r of runs) for (const k of Object.keys(r.fields)) seen.add(k);
  return [...seen];
}

/** Labels of the fields gkLabRun writes (a field not listed shows its
 *  JSON name). */
export const FIELD_LABELS: Record<string, MessageKey> = {
  appendfsync: 'aofLab.f.appendfsync',
  disk: 'aofLab.f.disk',
  commands_sent: 'aofLab.f.commands_sent',
  commands_run_in_memory: 'aofLab.f.commands_run_in_memory',
  aof_buf_bytes: 'aofLab.f.aof_buf_bytes',
  aof_bytes_written: 'aofLab.f.aof_bytes_written',
  aof_file_bytes: 'aofLab.f.aof_file_bytes',
  replies_received: 'aofLab.f.replies_received',
  keys_after_restart: 'aofLab.f.keys_after_restart',
  writes_per_sec_offered: 'aofLab.f.writes_per_sec_offered',
  crashes: 'aofLab.f.crashes',
  mean_acknowledged: 'aofLab.f.mean_acknowledged',
  max_lost_acknowledged: 'aofLab.f.max_lost_acknowledged',
  mean_lost_acknowledged: 'aofLab.f.mean_lost_acknowledged',
  max_loss_window_ms: 'aofLab.f.max_loss_window_ms',
  mean_aof_delayed_fsync: 'aofLab.f.mean_aof_delayed_fsync',
  mean_log_fsync_too_long: 'aofLab.f.mean_log_fsync_too_long',
  ops_per_sec: 'aofLab.f.ops_per_sec',
  fsyncs_per_sec: 'aofLab.f.fsyncs_per_sec',
  p99_latency_ms: 'aofLab.f.p99_latency_ms',
  'process_crash.crashes': 'aofLab.f.process_crash.crashes',
  'process_crash.max_lost_acknowledged': 'aofLab.f.process_crash.max_lost_acknowledged',
  'process_crash.mean_lost_acknowledged': 'aofLab.f.process_crash.mean_lost_acknowledged',
  'process_crash.max_loss_window_ms': 'aofLab.f.process_crash.max_loss_window_ms',
  'power_loss.crashes': 'aofLab.f.power_loss.crashes',
  'power_loss.max_lost_acknowledged': 'aofLab.f.power_loss.max_lost_acknowledged',
  'power_loss.mean_lost_acknowledged': 'aofLab.f.power_loss.mean_lost_acknowledged',
  'power_loss.max_loss_window_ms': 'aofLab.f.power_loss.max_loss_window_ms',
  free_bytes: 'aofLab.f.free_bytes',
  value_bytes: 'aofLab.f.value_bytes',
  writes_sent: 'aofLab.f.writes_sent',
  first_refused_write: 'aofLab.f.first_refused_write',
  refused: 'aofLab.f.refused',
  ping_refused: 'aofLab.f.ping_refused',
  get_still_works: 'aofLab.f.get_still_works',
  log_short_write: 'aofLab.f.log_short_write',
  log_write_error_solved: 'aofLab.f.log_write_error_solved',
  writes_accepted_again_after_ms: 'aofLab.f.writes_accepted_again_after_ms',
};

/** Fields that are milliseconds (shown as durations). */
export function isMs(field: string): boolean {
  return field.endsWith('_ms');
}

const num = (f: Record<string, LabValue>, k: string): number => Number(f[k] ?? NaN);
const str = (f: Record<string, LabValue>, k: string): string => String(f[k] ?? '');

/** The sentence that explains one run, with its figures in it; null for
 *  a run this version does not know. `ms` formats a duration in ms and
 *  `yes` a boolean, in the page's language. */
export function explainRun(lab: AofLabName, run: LabRunFigures, ms: (v: number) => string,
  yes: (v: boolean) => string): { key: MessageKey; params: Params } | null {
  const f = run.fields;
  if (lab === 'aof-not-a-wal' && 'commands_sent' in f) {
    return {
      key: 'aofLab.explain.burst',
      params: {
        policy: str(f, 'appendfsync'), sent: num(f, 'commands_sent'), run: num(f, 'commands_run_in_memory'),
        buf: num(f, 'aof_buf_bytes'), written: num(f, 'aof_bytes_written'), replies: num(f, 'replies_received'),
        keys: num(f, 'keys_after_restart'),
      },
    };
  }
  if (lab === 'aof-not-a-wal' && 'crashes' in f) {
    return {
      key: 'aofLab.explain.power',
      params: {
        disk: str(f, 'disk'), offered: num(f, 'writes_per_sec_offered'), crashes: num(f, 'crashes'),
        lost: num(f, 'max_lost_acknowledged'), window: ms(num(f, 'max_loss_window_ms')),
        delayed: num(f, 'mean_aof_delayed_fsync'), toolong: num(f, 'mean_log_fsync_too_long'),
      },
    };
  }
  if (lab === 'fsync-policies' && 'ops_per_sec' in f) {
    return {
      key: 'aofLab.explain.policy',
      params: {
        name: run.name, disk: str(f, 'disk'), ops: Math.round(num(f, 'ops_per_sec')),
        fsyncs: num(f, 'fsyncs_per_sec'), p99: ms(num(f, 'p99_latency_ms')),
        pLost: num(f, 'process_crash.max_lost_acknowledged'), wLost: num(f, 'power_loss.max_lost_acknowledged'),
        wWindow: ms(num(f, 'power_loss.max_loss_window_ms')), crashes: num(f, 'power_loss.crashes'),
      },
    };
  }
  if (lab === 'disk-full' && 'writes_sent' in f) {
    return {
      key: 'aofLab.explain.diskFull',
      params: {
        free: num(f, 'free_bytes'), value: num(f, 'value_bytes'), sent: num(f, 'writes_sent'),
        first: num(f, 'first_refused_write'), refused: num(f, 'refused'), ping: yes(f.ping_refused === true),
        get: yes(f.get_still_works === true), short: num(f, 'log_short_write'),
        solved: num(f, 'log_write_error_solved'), again: ms(num(f, 'writes_accepted_again_after_ms')),
      },
    };
  }
  return null;
}
