import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { NetworkNodeView } from '../../../../wasm/protocol';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

/** Lines shown at most: the ring holds 1,024. */
const SHOWN = 300;

/** A server's log, as redis-server writes it to its logfile, the newest
 *  line at the bottom: pick the server by its port. It follows the world
 *  as time moves (a full sync's steps, a failure's warnings). */
export const ServerLog = memo(function ServerLog({ servers }: { servers: readonly NetworkNodeView[] }) {
  const t = useT();
  const store = useStoreApi();
  const target = useLessonTarget('network.log');
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const prompt = useAppState((s) => s.snapshot?.prompt ?? '');
  const [chosen, setChosen] = useState<number | null>(null);
  const ports = [...servers].map((s) => s.port).sort((a, b) => a - b);
  // Until one is chosen: the server the console talks to.
  const consolePort = Number(/^127\.0\.0\.1:(\d+)>/.exec(prompt)?.[1] ?? NaN);
  const port = chosen !== null && ports.includes(chosen) ? chosen
    : ports.includes(consolePort) ? consolePort : ports[0];
  const node = servers.find((s) => s.port === port)?.node;
  // Read again whenever the log has a new last line, or time went back
  // (a rewound world's log may have as many lines, but other ones); only
  // the lines new since the last read are asked for when time went on.
  const logLast = servers.find((s) => s.port === port)?.logLast ?? 0;
  const [log, setLog] = useState<{ node: number; last: number; now: number; lines: string[] } | null>(null);
  const have = log && log.node === node && now >= log.now ? log : null;
  useEffect(() => {
    if (node === undefined) return;
    if (have && have.last === logLast) return;
    let current = true;
    void (async () => {
      const r = await store.serverLog(node, have && logLast > have.last ? have.last : 0);
      if (!current || !r) return;
      const lines = have && logLast > have.last ? [...have.lines, ...r.lines] : r.lines;
      setLog({ node, last: r.last, now, lines: lines.slice(-SHOWN) });
    })();
    return () => {
      current = false;
    };
    // have is read, not followed: a new read is due when the log or the
    // time moves.
  }, [store, node, logLast, now]);
  const lines = have ? have.lines : [];
  const box = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);
  if (port === undefined) return null;
  return (
    <div className="net-log" data-testid="net.log" {...target}>
      <div className="net-log-head">
        <h3 id="net-log-title">{t('netLog.title')}</h3>
        <label>
          <span>{t('netLog.server')}</span>
          <select value={port} data-testid="net.log.port" onChange={(e) => setChosen(Number(e.target.value))}>
            {ports.map((p) => <option key={p} value={p}>:{p}</option>)}
          </select>
        </label>
        <span className="dim">{t('netLog.hint')}</span>
      </div>
      <pre className="net-log-lines" ref={box} tabIndex={0} aria-labelledby="net-log-title" data-testid="net.log.lines"
        data-port={port}>
        {lines.map((l, i) => <span key={i} className={lineClass(l)}>{l}{'\n'}</span>)}
      </pre>
    </div>
  );
});

/** A warning ('#') stands out; debug and verbose lines ('.', '-') are dim. */
function lineClass(line: string): string {
  const level = /^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ (.)/.exec(line)?.[1];
  return level === '#' ? 'warn' : level === '.' || level === '-' ? 'dim' : '';
}
