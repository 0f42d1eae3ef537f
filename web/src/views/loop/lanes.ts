// The timeline's lanes: the server, then each client program, named from
// the snapshot (their ids and specs) and translated.
import { useMemo } from 'react';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import type { LaneInfo } from '../../render/timeline';

export function useLanes(): LaneInfo[] {
  const t = useT();
  const store = useStoreApi();
  // Lanes change only when client programs are added (or rewound away).
  const ids = useAppState((s) => (s.snapshot?.workloads ?? []).map((w) => w.id).join(','));
  return useMemo(() => {
    const list = store.getState().snapshot?.workloads ?? [];
    return [
      { node: 0, label: t('loop.server'), sub: t('loop.serverSub'), role: 'server' as const },
      ...list.map((w) => ({
        node: w.id,
        label: t('loop.workload', { preset: t(`wl.preset.${w.preset}`), id: w.id }),
        sub: t('loop.workloadSub', { clients: w.spec.clients ?? '—', pipeline: w.spec.pipeline ?? '—' }),
        role: 'workload' as const,
      })),
    ];
  }, [t, ids, store]);
}
