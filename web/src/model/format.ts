// Formatting for display: virtual time, counts, log actions. Pure functions.
import type { Action } from '../../../wasm/protocol';
import { mcCommandLine } from '../../../wasm/mcprotocol';
import type { MessageKey, Params, Translate } from '../i18n';

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Virtual time as h:mm:ss.mmm. */
export function formatClock(ns: number): string {
  const ms = Math.floor(ns / 1e6);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  return `${h}:${pad(m, 2)}:${pad(s, 2)}.${pad(ms % 1000, 3)}`;
}

/** The sub-millisecond part of a virtual time, as µs and ns. */
export function formatSubMs(ns: number): string {
  const rest = Math.floor(ns % 1e6);
  return `${pad(Math.floor(rest / 1000), 3)} ${pad(rest % 1000, 3)}`;
}

/** A virtual duration in a compact unit ("+100 ms", "+2.5 s"). */
export function formatDelta(ns: number): string {
  if (ns < 1e3) return `+${Math.round(ns)} ns`;
  if (ns < 1e6) return `+${(ns / 1e3).toFixed(ns < 1e4 ? 1 : 0)} µs`;
  if (ns < 1e9) return `+${(ns / 1e6).toFixed(ns < 1e7 ? 1 : 0)} ms`;
  return `+${(ns / 1e9).toFixed(2)} s`;
}

/** The server's wall clock at virtual time ns (UTC, hh:mm:ss). */
export function formatWall(unixMsAtZero: number, ns: number): string {
  const d = new Date(unixMsAtZero + Math.floor(ns / 1e6));
  return `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)} UTC`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** A logged action in words, in the page's language: describeAction's
 *  sentence, with a crash's mode and point named as the AOF panel names
 *  them. */
export function actionText(t: Translate, a: Action): string {
  if (a.kind === 'crash' || a.kind === 'crashAt') {
    const mode = t(a.mode === 'power' ? 'aof.crashAt.mode.power' : 'aof.crashAt.mode.process');
    return a.kind === 'crash'
      ? t('action.crash', { mode })
      : t('action.crashAt', { mode, point: t(`aof.crashAt.${a.point}`) });
  }
  const d = describeAction(a);
  const text = t(d.key, d.params);
  // An action on another server than the first names it.
  return 'port' in a && a.port !== undefined && a.kind !== 'server' ? t('action.onServer', { text, port: a.port }) : text;
}

/** The i18n key and parameters that describe a logged action. */
export function describeAction(a: Action): { key: MessageKey; params: Params } {
  switch (a.kind) {
    case 'console': {
      const first = a.text.split(/\r?\n/)[0];
      return { key: 'action.console', params: { text: first.length > 40 ? `${first.slice(0, 40)}…` : first } };
    }
    case 'populate':
      return { key: 'action.populate', params: { n: a.n } };
    case 'delete':
      return { key: 'action.delete', params: { n: a.n } };
    case 'activeRehash':
      return { key: 'action.activeRehash', params: { on: a.on ? 'yes' : 'no' } };
    case 'config':
      return { key: 'action.config', params: { name: a.name, value: a.value } };
    case 'rehashStep':
      return { key: 'action.rehashStep', params: { n: a.steps } };
    case 'scanStart':
      return { key: a.match && a.match !== '*' ? 'action.scanStartMatch' : 'action.scanStart', params: { count: a.count, match: a.match } };
    case 'scanStep':
      return a.calls && a.calls > 1 ? { key: 'action.scanSteps', params: { n: a.calls } }
        : { key: 'action.scanStep', params: {} };
    case 'scanFinish':
      return { key: 'action.scanFinish', params: {} };
    case 'advance':
      return { key: 'action.advance', params: {} };
    case 'wait':
      return { key: 'action.wait', params: { t: formatDelta(a.ns).slice(1) } };
    case 'step':
      return { key: 'action.step', params: {} };
    case 'disk':
      return { key: 'action.disk', params: { preset: a.preset } };
    case 'diskFree':
      return { key: 'action.diskFree', params: { bytes: formatBytes(a.bytes) } };
    case 'diskReadOnly':
      return { key: a.readonly ? 'action.diskReadOnly' : 'action.diskWritable', params: { dir: a.dir || '.' } };
    case 'crash':
      return { key: 'action.crash', params: { mode: a.mode === 'power' ? 'power loss' : 'kill -9' } };
    case 'crashAt':
      return { key: 'action.crashAt', params: { mode: a.mode === 'power' ? 'power loss' : 'kill -9', point: a.point } };
    case 'restart':
      return { key: 'action.restart', params: {} };
    case 'server':
      return { key: 'action.server', params: { port: a.port } };
    case 'machine':
      return { key: 'action.machine', params: { name: a.name, value: a.value } };
    case 'stepIteration':
      return { key: 'action.stepIteration', params: { node: a.node } };
    case 'workload':
      return { key: 'action.workload', params: { preset: a.preset, clients: a.clients ?? '', pipeline: a.pipeline ?? 1 } };
    case 'workloadStop':
      return { key: 'action.workloadStop', params: { id: a.id } };
    case 'lab':
      return { key: 'action.lab', params: { name: a.name } };
    case 'labNext':
      return { key: 'action.labNext', params: {} };
    case 'trap':
      return { key: 'action.trap', params: {} };
    case 'mcStart':
      return { key: 'action.mcStart', params: { cmd: mcCommandLine(a.options) } };
    case 'mcLine': {
      const first = a.text.split(/\r?\n/)[0];
      return { key: 'action.mcLine', params: { text: first.length > 40 ? `${first.slice(0, 40)}…` : first } };
    }
    case 'mcFill':
      return { key: 'action.mcFill', params: { from: a.first, to: a.first + a.count - 1 } };
    case 'mcSet':
      return { key: 'action.mcLine', params: { text: `set ${a.key} ${a.flags} 0 ${a.bytes}` } };
  }
}
