// The timeline's lanes: the server, the other servers of the world (by
// port: a replica's lane says whose), then each client program, named from
// the snapshot (their ids and specs) and translated; or, when the timeline
// shows the stepped lab's world, its server, the EVAL run's client and its
// monitor, named from the lab's figures.
import { useMemo } from 'react';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import type { LaneInfo } from '../../render/timeline';
import { useLoop, useLoopApi } from './hooks';
import { programName } from './programName';

export function useLanes(): LaneInfo[] {
  const t = useT();
  const store = useStoreApi();
  const loop = useLoopApi();
  const source = useLoop((s) => s.timelineSource);
  const labRun = useLoop((s) => s.liveLab?.result?.json ?? null);
  // Lanes change only when client programs are added (or rewound away).
  const ids = useAppState((s) => (s.snapshot?.workloads ?? []).map((w) => w.id).join(','));
  // ... and when servers are started or become replicas.
  const servers = useAppState((s) => (s.snapshot?.network ?? []).map((n) => `${n.node}:${n.port}:${n.masterPort}`).join(','));
  return useMemo(() => {
    const server = { node: 0, label: t('loop.server'), sub: t('loop.serverSub'), role: 'server' as const };
    const run = source === 'lab' && labRun ? loop.labEvalRun() : null;
    if (run) {
      return [
        server,
        { node: run.client.node, label: t('lab.eval.lane.client'), sub: t('lab.eval.lane.clientSub'), role: 'workload' as const },
        {
          node: run.monitor.node, label: t('lab.eval.lane.monitor'),
          sub: t('lab.eval.lane.monitorSub', { ms: run.monitor.interval_ms }), role: 'workload' as const,
        },
      ];
    }
    const list = store.getState().snapshot?.workloads ?? [];
    const others = (store.getState().snapshot?.network ?? []).filter((n) => n.node !== 0).map((n) => ({
      node: n.node,
      label: t('loop.serverAt', { port: String(n.port) }),
      sub: n.masterPort ? t('loop.replicaSub', { port: String(n.masterPort) }) : t('loop.serverSub'),
      role: 'server' as const,
    }));
    return [
      server,
      ...others,
      ...list.map((w) => ({
        node: w.id,
        label: t('loop.workload', { preset: programName(t, w.preset, w.spec.command), id: w.id }),
        sub: t('loop.workloadSub', { clients: w.spec.clients ?? '—', pipeline: w.spec.pipeline ?? '—' }),
        role: 'workload' as const,
      })),
    ];
  }, [t, ids, servers, store, loop, source, labRun]);
}
