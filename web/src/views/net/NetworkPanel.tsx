import { memo, useEffect, useRef, useState, type FormEvent } from 'react';
import type { NetworkNodeView } from '../../../../wasm/protocol';
import { useAppState, useFormatNumber, useReady, useStoreApi, useT } from '../../app/hooks';
import { formatBytes } from '../../model/format';
import { useLessonTarget } from '../lesson/hooks';
import { NetLabs } from './NetLabs';
import { ServerLog } from './ServerLog';
import { layout, linkWord, replicaWord, type Edge, type Placed } from './model';
import './net.css';

const BOX_W = 224;
const BOX_H = 104;
const COL = 252;
const ROW = 176;
const PAD = 16;
const EMPTY: NetworkNodeView[] = [];

/** The network: every Redis server of the world, on one machine
 *  (127.0.0.1), drawn as its replication topology -- masters above their
 *  replicas -- with each server's offset and link, and on each link the
 *  replica's sync state, how far it is behind and the bytes on their way
 *  to it. A form starts another server; a server's Console button points
 *  the console at it (redis-cli's CONNECT). */
export const NetworkPanel = memo(function NetworkPanel() {
  const t = useT();
  const target = useLessonTarget('network');
  const mapTarget = useLessonTarget('network.map');
  const servers = useAppState((s) => s.snapshot?.network ?? EMPTY);
  const prompt = useAppState((s) => s.snapshot?.prompt ?? '');
  // A star wider than the pane goes in rows, as many boxes a row as fit.
  const scroller = useRef<HTMLDivElement>(null);
  const [room, setRoom] = useState(Infinity);
  useEffect(() => {
    const el = scroller.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setRoom(Math.max(1, Math.floor((el.clientWidth - 2 * PAD + COL - BOX_W) / COL))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const { placed, edges, width, depth } = layout(servers, room);
  const w = width * COL - (COL - BOX_W) + 2 * PAD;
  const h = depth * ROW - (ROW - BOX_H) + 2 * PAD;
  return (
    <section className="panel net" aria-labelledby="net-title" data-testid="net.panel" {...target}>
      <header className="panel-head">
        <h2 id="net-title">{t('net.title')}</h2>
        <span className="panel-sub">{t('net.subtitle')}</span>
      </header>
      <StartServer used={servers.map((s) => s.port)} />
      <div className="net-scroll" ref={scroller} {...mapTarget}>
        <svg className="net-map" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img"
          aria-label={t('net.mapLabel', { n: servers.length })} data-testid="net.map">
          {edges.map((e) => <Link key={`${e.from.server.port}-${e.to.server.port}`} edge={e} />)}
          {placed.map((p) => <Box key={p.server.port} at={p} console={prompt.startsWith(`127.0.0.1:${p.server.port}`)} />)}
        </svg>
      </div>
      <ServerTable servers={servers} edges={edges} />
      <ServerLog servers={servers} />
      <NetLabs />
    </section>
  );
});

const boxX = (p: Placed) => PAD + p.x * COL;
const boxY = (p: Placed) => PAD + p.depth * ROW;

const Box = memo(function Box({ at, console }: { at: Placed; console: boolean }) {
  const t = useT();
  const n = useFormatNumber();
  const s = at.server;
  const word = linkWord(s);
  const x = boxX(at);
  const y = boxY(at);
  const role = word === 'master' ? t('net.role.master') : t('net.role.replica', { port: String(s.masterPort) });
  const sync = word === 'sync' && s.syncTotal > 0 ? ` ${Math.floor((100 * s.syncRead) / s.syncTotal)}%` : '';
  return (
    <g className={`net-box link-${word}${console ? ' console' : ''}`} data-testid={`net.node.${s.port}`}
      data-link={word} transform={`translate(${x} ${y})`}>
      <rect width={BOX_W} height={BOX_H} rx={8} />
      <text x={12} y={26} className="net-port">:{s.port}</text>
      <text x={BOX_W - 12} y={26} className="net-role" textAnchor="end">{role}</text>
      <text x={12} y={50} className="net-line">{t('net.offset', { n: n(word === 'master' ? s.offset : s.appliedOffset) })}</text>
      <text x={12} y={72} className={`net-line state-${word}`}>
        {word === 'master' ? t('net.backlog', { held: formatBytes(s.backlogHistlen), size: formatBytes(s.backlogSize) })
          : `${t(`net.link.${word}`)}${sync}`}
      </text>
      {s.rdbChild ? (
        <text x={12} y={94} className="net-line child">{t(s.rdbChild === 2 ? 'net.child.socket' : 'net.child.disk')}</text>
      ) : console ? <text x={12} y={94} className="net-line dim">{t('net.console')}</text> : null}
    </g>
  );
});

const Link = memo(function Link({ edge }: { edge: Edge }) {
  const t = useT();
  const { from, to, replica } = edge;
  const x1 = boxX(from) + BOX_W / 2;
  const y1 = boxY(from) + BOX_H;
  const x2 = boxX(to) + BOX_W / 2;
  const y2 = boxY(to);
  const moving = replica ? replica.buffered + replica.inFlight : 0;
  const word = replica ? replicaWord(replica.state) : 'handshake';
  const mx = (x1 + x2) / 2;
  const my = (y1 + y2) / 2;
  return (
    <g className={`net-link state-${word}${moving ? ' moving' : ''}`} data-testid={`net.link.${to.server.port}`}
      data-state={word} data-behind={edge.behind}>
      <path d={edge.crowded ? busPath(edge) : `M${x1} ${y1} C${x1} ${my} ${x2} ${my} ${x2} ${y2}`} />
      {edge.crowded ? null : (
        <>
          <text x={mx + 8} y={my - 6} className="net-link-label">
            {replica ? t(`net.replica.${word as 'online'}`) : t('net.link.handshake')}
          </text>
          <text x={mx + 8} y={my + 12} className="net-link-label dim">
            {moving ? t('net.moving', { bytes: formatBytes(moving) }) : t('net.behind', { bytes: formatBytes(edge.behind) })}
          </text>
        </>
      )}
    </g>
  );
});

/** A link of a star laid out in rows, drawn as a bus: down from the
 *  master into the gap below it, along the gaps between boxes to the
 *  replica's row, then down into it. */
function busPath({ from, to }: Edge): string {
  const gap = ROW - BOX_H;
  const x1 = boxX(from) + BOX_W / 2;
  const x2 = boxX(to) + BOX_W / 2;
  const below = boxY(from) + BOX_H + gap / 2;
  const above = boxY(to) - gap / 2;
  const route = above > below ? ` H${boxX(to) - (COL - BOX_W) / 2} V${above}` : '';
  return `M${x1} ${boxY(from) + BOX_H} V${below}${route} H${x2} V${boxY(to)}`;
}

/** The same figures as text: every server, its role, its link and how far
 *  behind it is. */
const ServerTable = memo(function ServerTable({ servers, edges }: { servers: NetworkNodeView[]; edges: Edge[] }) {
  const t = useT();
  const n = useFormatNumber();
  const store = useStoreApi();
  const ready = useReady();
  const target = useLessonTarget('network.table');
  return (
    <div className="net-scroll" {...target}>
    <table className="net-table" data-testid="net.table">
      <caption className="dim">{t('net.table.caption')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('net.col.port')}</th>
          <th scope="col">{t('net.col.role')}</th>
          <th scope="col">{t('net.col.link')}</th>
          <th scope="col" className="num">{t('net.col.offset')}</th>
          <th scope="col" className="num">{t('net.col.behind')}</th>
          <th scope="col" className="num">{t('net.col.lag')}</th>
          <th scope="col"><span className="sr-only">{t('net.col.console')}</span></th>
        </tr>
      </thead>
      <tbody>
        {[...servers].sort((a, b) => a.port - b.port).map((s) => {
          const word = linkWord(s);
          const edge = edges.find((e) => e.to.server.port === s.port);
          const lag = edge?.replica?.ackAgeMs;
          return (
            <tr key={s.port} data-testid={`net.row.${s.port}`}>
              <th scope="row">{s.port}</th>
              <td>{word === 'master' ? t('net.role.master') : t('net.role.replica', { port: String(s.masterPort) })}</td>
              <td>{word === 'master' ? '—' : t(`net.link.${word}`)}</td>
              <td className="num">{n(word === 'master' ? s.offset : s.appliedOffset)}</td>
              <td className="num">{edge ? formatBytes(edge.behind) : '—'}</td>
              <td className="num">{lag !== undefined && lag >= 0 ? t('net.lagMs', { ms: n(lag) }) : '—'}</td>
              <td>
                <button type="button" className="btn small" disabled={!ready} data-testid={`net.connect.${s.port}`}
                  onClick={() => void store.runConsole(`CONNECT 127.0.0.1 ${s.port}`)}>{t('net.connect')}</button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
    </div>
  );
});

const StartServer = memo(function StartServer({ used }: { used: number[] }) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const next = (() => {
    let p = 6380;
    while (used.includes(p)) p++;
    return p;
  })();
  const [text, setText] = useState('');
  const target = useLessonTarget('network.start');
  const port = text === '' ? next : Number(text);
  const valid = Number.isInteger(port) && port >= 1 && port <= 65535;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    void store.act({ kind: 'server', port });
    setText('');
  };
  return (
    <form className="net-start" onSubmit={submit} data-testid="net.start" {...target}>
      <label>
        <span>{t('net.start.port')}</span>
        <input type="number" min={1} max={65535} inputMode="numeric" value={text} placeholder={String(next)}
          aria-invalid={!valid} data-testid="net.start.port" onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit" className="btn small primary" disabled={!ready || !valid} data-testid="net.start.go">
        {t('net.start.go')}
      </button>
      <span className="dim">{t('net.start.hint')}</span>
    </form>
  );
});
