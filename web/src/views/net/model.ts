// The network view's model: the servers of the world (the snapshot's
// network, from gkReplInspect) placed as a topology -- each master at the
// top of its tree, each replica under the server it replicates -- and what
// each link carries.
import type { NetworkNodeView } from '../../../../wasm/protocol';
import { ReplicaState, ReplLink } from '../../wasm-gen/seam';

export interface Placed {
  server: NetworkNodeView;
  /** Depth in its tree (0: a master, or a replica whose master is not in
   *  the world) and column, in box units. */
  depth: number;
  x: number;
}

export interface Edge {
  from: Placed;
  to: Placed;
  /** The master's view of this replica (null while it is not among its
   *  connected replicas: still connecting or in its handshake). */
  replica: NetworkNodeView['replicas'][number] | null;
  /** Bytes of the master's stream the replica has not applied yet. */
  behind: number;
  /** One of more replicas than fit side by side, laid out in rows: too
   *  many links for words on each (the table has their figures). */
  crowded: boolean;
}

/** Lays the servers out by tree: roots in port order, each child below its
 *  master, leaves side by side. A master whose replicas are all leaves and
 *  more than maxCols (a star) has them in rows of maxCols. */
export function layout(servers: readonly NetworkNodeView[], maxCols = Infinity):
  { placed: Placed[]; edges: Edge[]; width: number; depth: number } {
  const byPort = new Map(servers.map((s) => [s.port, s]));
  const children = new Map<number, NetworkNodeView[]>();
  const roots: NetworkNodeView[] = [];
  for (const s of [...servers].sort((a, b) => a.port - b.port)) {
    const up = s.link !== ReplLink.NONE ? byPort.get(s.masterPort) : undefined;
    if (up && up !== s) {
      const list = children.get(up.port) ?? [];
      list.push(s);
      children.set(up.port, list);
    } else {
      roots.push(s);
    }
  }
  const placed: Placed[] = [];
  const seen = new Set<number>();
  const crowded = new Set<number>();
  let column = 0;
  let maxDepth = 0;
  const leaf = (s: NetworkNodeView) => (children.get(s.port) ?? []).every((k) => seen.has(k.port) || k === s);
  const place = (s: NetworkNodeView, depth: number): Placed => {
    seen.add(s.port);
    maxDepth = Math.max(maxDepth, depth);
    const kids = (children.get(s.port) ?? []).filter((k) => !seen.has(k.port));
    const cols = Math.max(1, Math.floor(maxCols));
    if (kids.length > cols && kids.every(leaf)) {
      const first = column;
      kids.forEach((k, i) => {
        seen.add(k.port);
        crowded.add(k.port);
        const d = depth + 1 + Math.floor(i / cols);
        maxDepth = Math.max(maxDepth, d);
        placed.push({ server: k, depth: d, x: first + (i % cols) });
      });
      column += cols;
      const p = { server: s, depth, x: first + (cols - 1) / 2 };
      placed.push(p);
      return p;
    }
    const below = kids.map((k) => place(k, depth + 1));
    const x = below.length ? (below[0].x + below[below.length - 1].x) / 2 : column++;
    const p = { server: s, depth, x };
    placed.push(p);
    return p;
  };
  for (const r of roots) place(r, 0);
  // A loop of replicas (A replicates B, B replicates A) has no root.
  for (const s of servers) if (!seen.has(s.port)) place(s, 0);
  const at = new Map(placed.map((p) => [p.server.port, p]));
  const edges: Edge[] = [];
  for (const p of placed) {
    const s = p.server;
    if (s.link === ReplLink.NONE) continue;
    const m = at.get(s.masterPort);
    if (!m) continue;
    const replica = m.server.replicas.find((r) => r.port === s.port) ?? null;
    const applied = s.link === ReplLink.UP ? s.appliedOffset : 0;
    edges.push({ from: m, to: p, replica, behind: Math.max(0, m.server.offset - applied), crowded: crowded.has(s.port) });
  }
  return { placed, edges, width: Math.max(1, column), depth: maxDepth + 1 };
}

export type LinkWord = 'master' | 'connecting' | 'handshake' | 'sync' | 'up';

export function linkWord(s: NetworkNodeView): LinkWord {
  switch (s.link) {
    case ReplLink.CONNECTING: return 'connecting';
    case ReplLink.HANDSHAKE: return 'handshake';
    case ReplLink.TRANSFER: return 'sync';
    case ReplLink.UP: return 'up';
    default: return 'master';
  }
}

export type ReplicaWord = 'waitBgsave' | 'sendBulk' | 'online';

export function replicaWord(state: number): ReplicaWord {
  if (state === ReplicaState.ONLINE) return 'online';
  if (state === ReplicaState.SEND_BULK) return 'sendBulk';
  return 'waitBgsave';
}

/** The fastest, mean and slowest of the times known (null: none yet). */
export function spread(ms: readonly (number | null)[]): { min: number; avg: number; max: number } | null {
  const known = ms.filter((m): m is number => m !== null);
  if (!known.length) return null;
  return {
    min: Math.min(...known),
    avg: known.reduce((a, b) => a + b, 0) / known.length,
    max: Math.max(...known),
  };
}

/** A headless replication lab's runs (gkLabRun's JSON): each run's name
 *  and its delivery times' fastest, mean and slowest. */
export function parseReplLab(json: string): { name: string; min: number; avg: number; max: number; delivered: number }[] {
  const doc = JSON.parse(json) as { runs?: Record<string, unknown>[] };
  return (doc.runs ?? []).map((r) => ({
    name: String(r.name ?? ''), min: Number(r.min_ms), avg: Number(r.avg_ms), max: Number(r.max_ms),
    delivered: Number(r.delivered),
  }));
}
