// The typed handle the page exposes as window.glasskv for end-to-end tests
// (and for curious students in the devtools console).
import type { Action, ConsoleEntry, TraceResult } from '../../../wasm/protocol';
import type { LessonState } from '../lessons/runner';
import type { AppState } from '../model/store';

export interface TestHandle {
  state(): AppState;
  lesson(): LessonState;
  act(action: Action): Promise<ConsoleEntry[]>;
  /** Resolves when no request to the engine is in flight. */
  idle(): Promise<void>;
  trace(after: number, max: number): Promise<TraceResult>;
}
