// Types for the part of servers.mjs that the TypeScript tests use.
import type { ChildProcess } from 'node:child_process';

export interface Server {
  kind: 'redis' | 'glasskv';
  port: number;
  proc: ChildProcess;
  /** what it printed so far */
  log: string;
  /** its exit code, or the signal that ended it */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Starts redis-server or `glasskv server` on a free port (or on port),
 *  with args after its own, and resolves once it answers PING and is the
 *  process answering; script runs glasskv through scripts/glasskv.mjs. */
export function startServer(kind: 'redis' | 'glasskv', args?: string[],
  opts?: { port?: number; script?: boolean }): Promise<Server>;
