// The shape of a parsed lesson (see tutorials/README.md for the source
// format). Plain data: no React, no engine, no functions, so a lesson can be
// parsed in Node by the tests exactly as the page parses it.
import type { Action } from '../../../wasm/protocol';
import type { MdBlock, MdInline } from './markdown';

export type Level = 'beginner' | 'intermediate' | 'advanced';
export const LEVELS: readonly Level[] = ['beginner', 'intermediate', 'advanced'];

/** The panels a lesson can show. */
export type ViewName = 'console' | 'ht' | 'scan' | 'inspect' | 'loop' | 'aof' | 'network' | 'slabs';
export const VIEW_NAMES: readonly ViewName[] = ['console', 'ht', 'scan', 'inspect', 'loop', 'aof', 'network', 'slabs'];

export type LessonLang = 'en' | 'ko';

export interface Lesson {
  id: string;
  lang: LessonLang;
  title: string;
  level: Level;
  /** Panels shown while the lesson is open, in the page's order. */
  views: ViewName[];
  /** The scenario: every step starts from a world with this seed. */
  seed: number;
  /** Sort key in the lesson list (lower first). */
  order: number;
  /** One line for the lesson list. */
  summary: MdInline[];
  /** Prose before the first step, shown above it. */
  intro: MdBlock[];
  steps: Step[];
}

export interface Step {
  index: number;
  /** The step's heading as plain text. */
  title: string;
  items: StepItem[];
}

export type StepItem =
  | { kind: 'prose'; nodes: MdBlock[] }
  | { kind: 'block'; block: Block };

interface BlockBase {
  /** "step.block", both counted from 0: stable while the file keeps its shape. */
  key: string;
  /** Line of the opening fence in the source file (1-based). */
  line: number;
}

/** A block that changes the world: its actions go into the input log. */
interface ActingBlock extends BlockBase {
  /** Runs when the step is entered instead of on a click. */
  auto: boolean;
  actions: Action[];
}

/** Console lines, sent as one pipelined write. */
export interface RunBlock extends ActingBlock {
  type: 'run';
  text: string;
}

/** Button actions, one per line (add, delete, scan-start, ...). */
export interface DoBlock extends ActingBlock {
  type: 'do';
  /** Each source line with the actions it stands for. */
  lines: { text: string; actions: Action[] }[];
}

/** Configuration parameters to set, one "name value" per line. */
export interface ConfigBlock extends ActingBlock {
  type: 'config';
  settings: { name: string; value: string }[];
}

/** Views or parts of views to bring into sight and highlight. */
export interface FocusBlock extends BlockBase {
  type: 'focus';
  targets: string[];
}

export type AnswerType = 'choice' | 'number' | 'text';

/** Predict, then run: the answer is read from the engine after the run. */
export interface PredictBlock extends BlockBase {
  type: 'predict';
  auto: false;
  question: MdInline[];
  /** Offered answers (the value compared, the label shown); null for a
   *  typed answer. */
  choices: Choice[] | null;
  /** How the learner answers: by picking a choice, or by typing a number
   *  or a text ("type:"), which the page checks before it runs anything. */
  answerType: AnswerType;
  /** A probe path (see probe.ts) read after the actions ran. */
  answer: string;
  explain: MdInline[] | null;
  /** Console lines it runs ("run:"), or none. */
  commands: string[];
  /** Action lines it runs ("do:"), or none. */
  lines: { text: string; actions: Action[] }[];
  actions: Action[];
}

export interface Choice {
  value: string;
  label: string;
}

/** Claims about the engine's state after the preceding acting block. The
 *  test suite checks them against the engine; the page does not show them. */
export interface ExpectBlock extends BlockBase {
  type: 'expect';
  checks: Expectation[];
}

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export interface Expectation {
  probe: string;
  op: CompareOp;
  value: string;
  line: number;
}

export type Block = RunBlock | DoBlock | ConfigBlock | FocusBlock | PredictBlock | ExpectBlock;
export type ActionBlock = RunBlock | DoBlock | ConfigBlock | PredictBlock;

export function isActionBlock(b: Block): b is ActionBlock {
  return b.type === 'run' || b.type === 'do' || b.type === 'config' || b.type === 'predict';
}

/** An error in a lesson file, with the line it is about. */
export class LessonError extends Error {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line}: ${message}`);
    this.name = 'LessonError';
    this.file = file;
    this.line = line;
  }
}
