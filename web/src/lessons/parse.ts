// Parses a lesson file (tutorials/<lang>/<id>.md; the format is described
// in tutorials/README.md): front matter, then steps, each a level-2
// heading followed by prose and fenced `glasskv` blocks. Errors name the
// file and line, so a mistake in a lesson is found by the tests, never by a
// learner.
import type { Token, Tokens } from 'marked';
import type { Action } from '../../../wasm/protocol';
import { ActionLineError, parseActionLine } from './actions';
import { blockNodes, lex, parseInline, plainText, inlineNodes, type MdBlock } from './markdown';
import { parseProbe } from './probe';
import { isFocusTarget } from './targets';
import {
  LEVELS, LessonError, VIEW_NAMES, isActionBlock, type AnswerType, type Block, type Choice, type CompareOp, type Expectation, type Lesson,
  type LessonLang, type Level, type PredictBlock, type Step, type ViewName,
} from './types';

const FRONT_KEYS = ['id', 'title', 'level', 'views', 'seed', 'order', 'summary'] as const;
const ID = /^[a-z0-9][a-z0-9-]*$/;
const LANGS: readonly LessonLang[] = ['en', 'ko'];

type Front = Partial<Record<(typeof FRONT_KEYS)[number], string>>;

class Ctx {
  constructor(readonly file: string) {}
  fail(line: number, message: string): never {
    throw new LessonError(this.file, line, message);
  }
}

/** The language and id a lesson's path names (tutorials/<lang>/<id>.md). */
export function pathInfo(file: string): { lang: LessonLang; id: string } | null {
  const m = /(?:^|\/)(en|ko)\/([^/]+)\.md$/.exec(file);
  return m ? { lang: m[1] as LessonLang, id: m[2] } : null;
}

function splitFrontMatter(ctx: Ctx, source: string): { front: Front; body: string; bodyLine: number } {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  if (lines[0]?.trim() !== '---') ctx.fail(1, 'a lesson starts with front matter between two "---" lines');
  const end = lines.indexOf('---', 1);
  if (end < 0) ctx.fail(1, 'the front matter has no closing "---" line');
  const front: Front = {};
  for (let i = 1; i < end; i++) {
    const line = lines[i];
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const m = /^([A-Za-z]+)\s*:\s*(.*)$/.exec(line);
    if (!m) ctx.fail(i + 1, `front matter lines are "key: value", not "${line}"`);
    const key = m[1] as keyof Front;
    if (!(FRONT_KEYS as readonly string[]).includes(key)) ctx.fail(i + 1, `unknown front matter key "${m[1]}" (${FRONT_KEYS.join(', ')})`);
    if (front[key] !== undefined) ctx.fail(i + 1, `"${key}" is given twice`);
    front[key] = unquote(m[2].trim());
  }
  return { front, body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 };
}

function unquote(v: string): string {
  return v.length >= 2 && ((v[0] === '"' && v.endsWith('"')) || (v[0] === "'" && v.endsWith("'"))) ? v.slice(1, -1) : v;
}

function listValue(v: string): string[] {
  const inner = v.startsWith('[') && v.endsWith(']') ? v.slice(1, -1) : v;
  return inner.split(',').map((s) => unquote(s.trim())).filter(Boolean);
}

/** Parses one lesson file. `file` is its path (for messages, its language
 *  and the id it must declare). Throws LessonError. */
export function parseLesson(source: string, file: string): Lesson {
  const ctx: Ctx = new Ctx(file);
  const where = pathInfo(file);
  if (!where) ctx.fail(1, 'a lesson lives at tutorials/<en|ko>/<id>.md');
  const { front, body, bodyLine } = splitFrontMatter(ctx, source);
  const need = (k: keyof Front): string => front[k] ?? ctx.fail(1, `the front matter needs "${k}"`);
  const id = need('id');
  if (!ID.test(id)) ctx.fail(1, `id "${id}" may use only a-z, 0-9 and "-"`);
  if (id !== where.id) ctx.fail(1, `id "${id}" differs from the file name "${where.id}.md"`);
  const level = need('level') as Level;
  if (!LEVELS.includes(level)) ctx.fail(1, `level is one of ${LEVELS.join(', ')}`);
  const views = listValue(need('views'));
  for (const v of views) if (!VIEW_NAMES.includes(v as ViewName)) ctx.fail(1, `unknown view "${v}" (${VIEW_NAMES.join(', ')})`);
  if (!views.length) ctx.fail(1, 'views names at least one view');
  const seed = front.seed === undefined ? 1 : Number(front.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) ctx.fail(1, 'seed is a whole number');
  const order = front.order === undefined ? 100 : Number(front.order);
  if (!Number.isFinite(order)) ctx.fail(1, 'order is a number');

  const { intro, steps } = parseBody(ctx, body, bodyLine);
  if (!steps.length) ctx.fail(bodyLine, 'a lesson has at least one step (a "## " heading)');
  if (!LANGS.includes(where.lang)) ctx.fail(1, 'unknown language');
  return {
    id, lang: where.lang, title: need('title'), level,
    views: VIEW_NAMES.filter((v) => views.includes(v)),
    seed, order, summary: parseInline(front.summary ?? ''), intro, steps,
  };
}

interface Located {
  token: Token;
  line: number;
}

/** Top-level tokens with the line each starts on. */
function locate(body: string, firstLine: number): Located[] {
  const out: Located[] = [];
  let line = firstLine;
  for (const token of lex(body)) {
    const lead = /^\n*/.exec(token.raw)![0].length;
    out.push({ token, line: line + (token.type === 'space' ? 0 : lead) });
    line += (token.raw.match(/\n/g) ?? []).length;
  }
  return out;
}

function parseBody(ctx: Ctx, body: string, firstLine: number): { intro: MdBlock[]; steps: Step[] } {
  const intro: MdBlock[] = [];
  const steps: Step[] = [];
  let prose: Token[] = [];
  const flush = () => {
    if (!prose.length) return;
    const nodes = blockNodes(prose);
    prose = [];
    if (!nodes.length) return;
    const step = steps[steps.length - 1];
    if (step) step.items.push({ kind: 'prose', nodes });
    else intro.push(...nodes);
  };
  for (const { token, line } of locate(body, firstLine)) {
    if (token.type === 'heading' && (token as Tokens.Heading).depth <= 2) {
      flush();
      const h = token as Tokens.Heading;
      if (h.depth === 1) {
        if (steps.length) ctx.fail(line, 'a "# " heading may only come before the first step');
        continue;
      }
      const title = plainText(inlineNodes(h.tokens)).trim();
      if (!title) ctx.fail(line, 'a step needs a title');
      steps.push({ index: steps.length, title, items: [] });
      continue;
    }
    const info = token.type === 'code' ? ((token as Tokens.Code).lang ?? '').trim() : '';
    if (token.type === 'code' && /^glasskv(\s|$)/.test(info)) {
      flush();
      const step = steps[steps.length - 1];
      if (!step) ctx.fail(line, 'glasskv blocks belong to a step: put a "## " heading above');
      const n = step.items.filter((i) => i.kind === 'block').length;
      const block = parseBlock(ctx, info, (token as Tokens.Code).text, `${step.index}.${n}`, line);
      const earlier = step.items.flatMap((i) => (i.kind === 'block' && isActionBlock(i.block) ? [i.block] : []));
      if (block.type === 'expect' && !earlier.length) {
        ctx.fail(line, 'an expect block follows a block that runs something, in the same step');
      }
      if (isActionBlock(block) && block.auto && earlier.some((b) => !b.auto)) {
        ctx.fail(line, 'auto blocks run as the step opens: put them before the blocks the learner runs');
      }
      step.items.push({ kind: 'block', block });
      continue;
    }
    prose.push(token);
  }
  flush();
  return { intro, steps };
}

function parseBlock(ctx: Ctx, info: string, text: string, key: string, line: number): Block {
  const [, kind = '', ...options] = info.split(/\s+/);
  const auto = options.includes('auto');
  for (const o of options) if (o !== 'auto') ctx.fail(line, `unknown block option "${o}"`);
  const body = text.split('\n');
  const lines = body.map((l, i) => ({ text: l, line: line + 1 + i })).filter((l) => l.text.trim() && !l.text.trim().startsWith('#'));
  if (auto && (kind === 'predict' || kind === 'expect' || kind === 'focus')) ctx.fail(line, `a ${kind} block cannot be auto`);
  switch (kind) {
    case 'run': {
      const commands = body.filter((l) => l.trim()).join('\n');
      if (!commands) ctx.fail(line, 'a run block needs at least one command');
      return { type: 'run', key, line, auto, text: commands, actions: [{ kind: 'console', text: commands }] };
    }
    case 'do': {
      if (!lines.length) ctx.fail(line, 'a do block needs at least one action');
      const parsed = lines.map((l) => ({ text: l.text.trim(), actions: actionsOf(ctx, l.text, l.line) }));
      return { type: 'do', key, line, auto, lines: parsed, actions: parsed.flatMap((l) => l.actions) };
    }
    case 'config': {
      if (!lines.length) ctx.fail(line, 'a config block needs at least one "name value" line');
      const settings = lines.map((l) => {
        const m = /^\s*([a-z][a-z0-9-]*)\s+(\S.*?)\s*$/i.exec(l.text);
        if (!m) ctx.fail(l.line, `config lines are "name value", not "${l.text.trim()}"`);
        return { name: m[1].toLowerCase(), value: unquote(m[2]) };
      });
      const actions: Action[] = settings.map((s) => ({ kind: 'config', name: s.name, value: s.value }));
      return { type: 'config', key, line, auto, settings, actions };
    }
    case 'focus': {
      const targets = lines.flatMap((l) => l.text.trim().split(/[\s,]+/).map((t) => ({ t, line: l.line })));
      if (!targets.length) ctx.fail(line, 'a focus block names at least one view');
      for (const { t, line: at } of targets) if (!isFocusTarget(t)) ctx.fail(at, `unknown focus target "${t}"`);
      return { type: 'focus', key, line, targets: targets.map((x) => x.t) };
    }
    case 'predict':
      return parsePredict(ctx, body, key, line);
    case 'expect':
      return { type: 'expect', key, line, checks: lines.map((l) => parseExpectation(ctx, l.text, l.line)) };
    default:
      return ctx.fail(line, `unknown block "glasskv ${kind}" (run, do, config, focus, predict, expect)`);
  }
}

function actionsOf(ctx: Ctx, text: string, line: number): Action[] {
  try {
    return parseActionLine(text);
  } catch (e) {
    if (e instanceof ActionLineError) ctx.fail(line, e.message);
    throw e;
  }
}

function checkProbe(ctx: Ctx, path: string, line: number): void {
  try {
    parseProbe(path);
  } catch (e) {
    ctx.fail(line, (e as Error).message);
  }
}

const PREDICT_KEYS = ['question', 'choices', 'type', 'answer', 'run', 'do', 'explain'];
const ANSWER_TYPES = ['number', 'text'];

function parsePredict(ctx: Ctx, body: string[], key: string, line: number): PredictBlock {
  const fields: { key: string; value: string; line: number }[] = [];
  body.forEach((text, i) => {
    const at = line + 1 + i;
    if (!text.trim() || text.trim().startsWith('#')) return;
    const last = fields[fields.length - 1];
    if (/^\s/.test(text) && last) {
      last.value += ` ${text.trim()}`;
      return;
    }
    const m = /^([a-z]+)\s*:\s*(.*)$/.exec(text);
    if (!m) ctx.fail(at, `predict lines are "key: value" (${PREDICT_KEYS.join(', ')}), not "${text.trim()}"`);
    if (!PREDICT_KEYS.includes(m[1])) ctx.fail(at, `unknown predict key "${m[1]}" (${PREDICT_KEYS.join(', ')})`);
    fields.push({ key: m[1], value: m[2].trim(), line: at });
  });
  const all = (k: string) => fields.filter((f) => f.key === k);
  const one = (k: string, required: boolean) => {
    const f = all(k);
    if (f.length > 1) ctx.fail(f[1].line, `"${k}" is given twice`);
    if (required && !f.length) ctx.fail(line, `a predict block needs "${k}:"`);
    return f[0];
  };
  const question = one('question', true)!;
  const answer = one('answer', true)!;
  checkProbe(ctx, answer.value, answer.line);
  const choicesField = one('choices', false);
  const choices = choicesField ? choicesField.value.split('|').map((c) => c.trim()).filter(Boolean).map(choice) : null;
  if (choices && choices.length < 2) ctx.fail(choicesField!.line, 'choices are at least two answers separated by "|"');
  const typeField = one('type', false);
  if (choices && typeField) ctx.fail(typeField.line, 'a question with choices is answered by picking one: "type:" is for typed answers');
  if (!choices && !typeField) ctx.fail(line, 'a question without choices needs "type: number" or "type: text"');
  if (typeField && !ANSWER_TYPES.includes(typeField.value)) {
    ctx.fail(typeField.line, `type is number or text, not "${typeField.value}"`);
  }
  const answerType = (typeField ? typeField.value : 'choice') as AnswerType;
  const explain = one('explain', false);
  const runs = all('run');
  const dos = all('do');
  if (runs.length && dos.length) ctx.fail(dos[0].line, 'a predict block runs console commands (run:) or actions (do:), not both');
  if (!runs.length && !dos.length) ctx.fail(line, 'a predict block needs "run:" or "do:" lines: what to run after the guess');
  const commands = runs.map((f) => f.value);
  const lines = dos.map((f) => ({ text: f.value, actions: actionsOf(ctx, f.value, f.line) }));
  const actions: Action[] = commands.length
    ? [{ kind: 'console', text: commands.join('\n') }]
    : lines.flatMap((l) => l.actions);
  return {
    type: 'predict', key, line, auto: false, question: parseInline(question.value), choices, answerType,
    answer: answer.value, explain: explain ? parseInline(explain.value) : null, commands, lines, actions,
  };
}

/** "value" or "value = label": the engine's value, and what the learner reads. */
function choice(text: string): Choice {
  const eq = text.indexOf(' = ');
  if (eq < 0) return { value: text, label: text };
  return { value: text.slice(0, eq).trim(), label: text.slice(eq + 3).trim() };
}

function parseExpectation(ctx: Ctx, text: string, line: number): Expectation {
  const m = /^\s*(\S+?)\s*(!=|<=|>=|=|<|>)\s*(.*?)\s*$/.exec(text);
  if (!m || !m[3]) ctx.fail(line, `expect lines are "probe op value", e.g. "reply[0] = 0", not "${text.trim()}"`);
  checkProbe(ctx, m[1], line);
  return { probe: m[1], op: m[2] as CompareOp, value: m[3], line };
}
