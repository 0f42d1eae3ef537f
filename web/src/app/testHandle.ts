// The typed handle the page exposes as window.glasskv for end-to-end tests
// (and for curious students in the devtools console).
import type { Action, ConsoleEntry, KeyInspection, TimelineResult, TraceResult } from '../../../wasm/protocol';
import type { SlabsQuery, SlabsResultMap } from '../../../wasm/mcprotocol';
import type { AofView } from '../../../wasm/aofprotocol';
import type { LoopState } from '../model/loop';
import type { LessonState } from '../lessons/runner';
import type { AppState } from '../model/store';
import type { ShareState } from '../share/model';
import type { PresenterState } from './presenter';

export interface TestHandle {
  state(): AppState;
  lesson(): LessonState;
  act(action: Action): Promise<ConsoleEntry[]>;
  /** Resolves when no request to the engine is in flight. */
  idle(): Promise<void>;
  trace(after: number, max: number): Promise<TraceResult>;
  /** What the event-loop views hold (timeline window, sequence, samples). */
  loop(): LoopState;
  /** Resolves when no event-loop view request is in flight. */
  viewsIdle(): Promise<void>;
  /** Rewinds (or goes forward) to virtual time t of the recorded history. */
  seek(t: number): Promise<void>;
  timeline(t0: number, t1: number, px: number, nodes?: number[]): Promise<TimelineResult>;
  /** The memcached node's slabs, a what-if layout, or where an item lands. */
  slabs<Q extends SlabsQuery>(query: Q): Promise<SlabsResultMap[Q['what']] | null>;
  /** What the AOF panel shows (null while the engine is not ready). */
  aofView(): Promise<AofView | null>;
  /** How a key of the viewed db is stored, as the key inspector reads it
   *  (null: no such key; undefined: the engine cannot say now). */
  inspect(key: string): Promise<KeyInspection | null | undefined>;
  /** The engine's digest of the world's state (equal states, equal digests). */
  digest(): Promise<string>;
  /** A link to the current state, as the Share button makes it. */
  shareLink(): Promise<string>;
  /** The current state as an export file's text. */
  exportText(): string;
  share(): ShareState;
  presenter(): PresenterState;
}
