// The transcript's notes of persistence actions (disk presets, crashes,
// restarts), in the page's language. The worker writes them in English with
// the engine's names (wasm/aofsession.ts, applyPersist); the transcript
// shows the known ones in the words the AOF panel uses and leaves any other
// text as it is. No React here.
import { CRASH_POINTS, type CrashPoint } from '../../../wasm/aofprotocol';
import type { Translate } from '../i18n';
import { formatBytes } from '../model/format';

const MODES: Record<string, 'aof.crashAt.mode.process' | 'aof.crashAt.mode.power'> = {
  'kill -9': 'aof.crashAt.mode.process',
  'power loss': 'aof.crashAt.mode.power',
};

const isPoint = (p: string): p is CrashPoint => (CRASH_POINTS as readonly string[]).includes(p);

/** The note as the transcript shows it. */
export function persistNote(t: Translate, input: string): string {
  let m: RegExpMatchArray | null;
  if ((m = input.match(/^disk preset (\S+)$/))) return t('action.disk', { preset: m[1] });
  if ((m = input.match(/^disk free (\d+) bytes$/))) return t('action.diskFree', { bytes: formatBytes(Number(m[1])) });
  if ((m = input.match(/^chmod (a-w|u\+w) (\S+)$/))) {
    return t(m[1] === 'a-w' ? 'console.persist.readOnly' : 'console.persist.writable', { cmd: input, dir: m[2] });
  }
  if (Object.hasOwn(MODES, input)) return t(MODES[input]);
  if ((m = input.match(/^(kill -9|power loss) armed: (\w+)$/))) {
    const point = m[2];
    if (isPoint(point)) return t('console.persist.armed', { mode: t(MODES[m[1]]), point: t(`aof.crashAt.${point}`) });
  }
  if (input === 'redis-server restarted') return t('console.persist.restarted');
  return input;
}
