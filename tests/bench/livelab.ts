// The eval-vs-zcard lab run live in the app's own WebAssembly module, as
// the worker runs it for the page: a labStart request to the worker's
// message handling (WorkerHost and Session), then its slices between the
// page's requests, until the labProgress event that says it is done. Its
// wall time includes loading the million keys and reading the EVAL run's
// trace into the lab's timeline. Prints one JSON object; bench.mjs bundles
// this file with rolldown and runs it in Node (best of `runs`, default 1).
import { readFileSync } from 'node:fs';
import createGlasskv from '../../web/src/wasm-gen/glasskv.mjs';
import { Glasskv } from '../../wasm/engine';
import { WorkerHost } from '../../wasm/host';
import type { FromWorker, LabProgress } from '../../wasm/protocol';
import { Session } from '../../wasm/session';

interface Part {
  part: LabProgress['part'];
  /** Real ms from the start until the part was first reported. */
  at: number;
}

async function runOnce(module: WebAssembly.Module): Promise<{ progress: LabProgress; parts: Part[]; slices: number; cpuMs: number }> {
  const parts: Part[] = [];
  let slices = 0;
  let resolve: (p: LabProgress) => void = () => {};
  const finished = new Promise<LabProgress>((r) => { resolve = r; });
  const session = new Session({
    loadEngine: () => Glasskv.load({ factory: createGlasskv, wasmModule: module }),
    emit: () => {},
  });
  const host = new WorkerHost(session, (msg: FromWorker) => {
    if ('id' in msg || msg.type !== 'labProgress') return;
    const p = msg.progress;
    slices++;
    if (!parts.length || parts[parts.length - 1].part !== p.part) parts.push({ part: p.part, at: p.wallMs });
    if (p.state !== 'running') resolve(p);
  });
  const cpu0 = process.cpuUsage();
  host.onMessage({ id: 1, type: 'boot', log: { version: 1, config: { seed: 1, unixMsAtZero: 0, heapLimit: 0 }, entries: [] } });
  host.onMessage({ id: 2, type: 'labStart', name: 'eval-vs-zcard', seed: 1 });
  const progress = await finished;
  const cpu = process.cpuUsage(cpu0);
  session.shutdown();
  return { progress, parts, slices, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const module = await WebAssembly.compile(new Uint8Array(readFileSync(process.argv[2])));
  const runs = Math.max(1, Number(process.argv[3] ?? 1));
  let best: Awaited<ReturnType<typeof runOnce>> | null = null;
  for (let i = 0; i < runs; i++) {
    const r = await runOnce(module);
    if (r.progress.state !== 'done') throw new Error(`the lab ended ${r.progress.state}: ${r.progress.error}`);
    if (!best || r.progress.wallMs < best.progress.wallMs) best = r;
  }
  const { progress, parts, slices, cpuMs } = best!;
  const lab = JSON.parse(progress.result!.json) as {
    runs: { name: string; client?: { bytes_written: number; bytes_read: number };
      server?: { longest_iteration: { ms: number } } }[];
  };
  const at = (p: LabProgress['part']) => parts.find((x) => x.part === p)?.at ?? NaN;
  console.log(JSON.stringify({
    wall_ms: progress.wallMs,
    cpu_ms: cpuMs,
    load_ms: at('zcard'),
    zcard_ms: at('eval') - at('zcard'),
    eval_ms: progress.wallMs - at('eval'),
    slices,
    bytes: lab.runs.slice(1).map((r) => [r.client!.bytes_written, r.client!.bytes_read]),
    freeze_ms: lab.runs[2].server!.longest_iteration.ms,
  }));
}

await main();
