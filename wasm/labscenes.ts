// The labs of the event-loop lessons as live scenes in the sandbox: each
// lab is a few parts, each part a set of client programs started together;
// the next part starts when every program of the previous one (monitors
// aside) has had all its replies. The headless labs (engine/src/labs.c,
// `glasskv run <lab>`) run every part in a fresh world and print figures;
// these run them one after another against the sandbox's server, so the
// timeline, the sequence diagram and the charts show them happen.
//
// The programs are those of labs.c, with fewer hosts and requests where
// labs.c uses more than a sandbox can show: a world has room for fifteen
// client programs, and a live part should take seconds, not minutes, of
// virtual time.
import type { LabName, WorkloadAction, WorkloadSpec } from './protocol';

const US = 1e3;
const MS = 1e6;
/** The load's SETs: enough to last past the MSET, 200 ms in (some
 *  35,000 a second get through on the lab's machine). */
const REPL_LOAD_REQUESTS = 10_000;

export interface LabPart {
  /** Names the part as labs.c names its run. */
  name: string;
  /** Servers the part starts before its programs, on the first one's
   *  machine (redis-server --port N --replicaof 127.0.0.1 M). */
  servers?: { port: number; replicaof: number }[];
  /** From this part on, every process of the machine shares this many
   *  CPUs (gkWorldSetCpus). */
  cpus?: { n: number; wakeNs: number; switchNs: number };
  programs: WorkloadAction[];
  /** What ends the part: by default every program's replies (monitors
   *  aside); 'synced': every server of the lab follows its master's
   *  stream; 'delivered': every replica ran the part's probe; 'elapsed':
   *  forNs after its programs started. */
  until?: 'replies' | 'synced' | 'delivered' | 'elapsed';
  forNs?: number;
  /** The command whose way to the replicas the part times: the first
   *  the master runs of that name and with that many arguments after the
   *  part starts (SET key value: 3; the MSET of ten keys: 21). */
  probe?: { command: string; argc: number };
}

function times(n: number, w: WorkloadAction): WorkloadAction[] {
  return Array.from({ length: n }, () => ({ ...w }));
}

const gets = (clients: number, pipeline: number, requests: number, rttNs: number, clientCmdNs: number):
  WorkloadAction => ({
  kind: 'workload', preset: pipeline > 1 ? 'redis-py' : 'benchmark', command: 'GET', clients, pipeline, requests,
  rttNs, clientCmdNs,
});

// Seed 003: a master and ten replicas on one machine of 2 CPUs, as
// labs_repl.c builds them (the master here is the page's server, 6379; the
// replicas 6380 to 6389), each read by a redis-cli MONITOR that costs 3.4
// us of CPU a line. First the replicas sync (diskless, after 7.0's 5 s
// delay); then one SET on the idle master; then 50 clients write SETs for
// 200 ms, and an MSET of ten keys goes in among them, as the last command
// of a redis-benchmark run. In the star every replica follows the master; in
// the chain each follows the one before it.
const REPL_MASTER = 6379;
const REPL_REPLICAS = 10;
const replMonitor = (port: number): WorkloadAction => ({
  kind: 'workload', preset: 'monitor', command: 'MONITOR', clients: 1, pipeline: 1, requests: 1,
  clientCmdNs: 3400, rttNs: 40 * US, port,
});

function replicationScene(chain: boolean): LabPart[] {
  const ports = Array.from({ length: REPL_REPLICAS }, (_, i) => REPL_MASTER + 1 + i);
  return [
    {
      name: 'sync',
      servers: ports.map((port) => ({ port, replicaof: chain ? port - 1 : REPL_MASTER })),
      cpus: { n: 2, wakeNs: 20 * US, switchNs: 2500 },
      programs: [],
      until: 'synced',
    },
    {
      name: 'idle',
      programs: [
        ...[REPL_MASTER, ...ports].map(replMonitor),
        { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 1, pipeline: 1, requests: 1, keyspace: 1,
          valueSize: 6, rttNs: 40 * US },
      ],
      until: 'delivered',
      probe: { command: 'SET', argc: 3 },
    },
    {
      name: 'load',
      programs: [
        { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 50, pipeline: 1, requests: REPL_LOAD_REQUESTS,
          keyspace: 100_000, rttNs: 100 * US },
      ],
      until: 'elapsed',
      forNs: 200 * MS,
    },
    {
      name: 'loaded',
      programs: [
        { kind: 'workload', preset: 'benchmark', command: 'MSET', clients: 1, pipeline: 1, requests: 1,
          keyspace: 100_000, rttNs: 100 * US },
      ],
      until: 'delivered',
      probe: { command: 'MSET', argc: 21 },
    },
  ];
}

export const LAB_SCENES: Record<LabName, LabPart[]> = {
  // Seed 001: python clients doing GETs, each round trip paying its own
  // read and write; then batches of 1024. labs.c: 8 programs of 10
  // connections, 125,000 GETs each; here 7 programs (two parts must fit in
  // one world), four batches of 1024 per connection.
  pipelining: [
    { name: 'no pipeline', programs: times(7, gets(10, 1, 40_960, 200 * US, 35 * US)) },
    { name: 'pipeline of 1024', programs: times(7, gets(10, 1024, 40_960, 200 * US, 35 * US)) },
  ],
  // Seed 000: one client sends batches of 20,000 GETs, inside MULTI/EXEC
  // and then plainly, while a monitor sends INFO every 10 ms (labs.c: every
  // 50 ms, for one virtual second per run).
  'pipeline-vs-multi': [
    {
      name: 'MULTI/EXEC batches',
      programs: [
        { ...gets(1, 20_000, 400_000, 100 * US, 100), preset: 'redis-py', multi: true },
        { kind: 'workload', preset: 'monitor', command: 'INFO', clients: 1, pipeline: 1, requests: 0,
          intervalNs: 10 * MS, rttNs: 100 * US, clientCmdNs: 200 },
      ],
    },
    { name: 'plain pipeline', programs: [{ ...gets(1, 20_000, 400_000, 100 * US, 100), preset: 'redis-py' }] },
  ],
  // Seed 002: one connection at 0.1 ms and at 250 ms round trip, with and
  // without a pipeline of 100.
  rtt: [
    { name: '0.1 ms, no pipeline', programs: [gets(1, 1, 5000, 100 * US, 5 * US)] },
    { name: '0.1 ms, pipeline of 100', programs: [gets(1, 100, 100_000, 100 * US, 5 * US)] },
    { name: '250 ms, no pipeline', programs: [gets(1, 1, 12, 250 * MS, 5 * US)] },
    { name: '250 ms, pipeline of 100', programs: [gets(1, 100, 1200, 250 * MS, 5 * US)] },
  ],
  // Seed 002: a Lettuce-like client, first as Lettuce behaves by default
  // (every command written and flushed as it is issued, 1,000 issued
  // before their replies are awaited), then with auto-flush off and one
  // flush of 50, or of 1,000, commands per batch.
  'command-flushing': [
    { name: 'flush after every command', pipeline: 1000, flush: 1 },
    { name: 'flush every 50', pipeline: 50, flush: 0 },
    { name: 'flush every 1000', pipeline: 1000, flush: 0 },
  ].map(({ name, pipeline, flush }) => ({
    name,
    programs: [{ ...gets(1, pipeline, 20_000, 100 * US, 2 * US), preset: 'lettuce' as const, flush }],
  })),
  'replication-star': replicationScene(false),
  'replication-chain': replicationScene(true),
};

/** Monitors run until stopped: a part is done without them. */
export function countsForCompletion(w: Pick<Partial<WorkloadSpec>, 'requests' | 'intervalNs'>): boolean {
  return (w.requests ?? 1) > 0 && !w.intervalNs;
}
