// Lessons: the parser (web/src/lessons/parse.ts) on small sources, then
// every lesson in tutorials/ run against the real engine: each step's
// starting state rebuilt from a clean world equals the state reached by
// walking the lesson, every claim (expect block) holds, and every
// question's answer is something the engine actually reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AofView } from '../../wasm/aofprotocol';
import type { SlabsView } from '../../wasm/mcprotocol';
import type { Action, ConsoleEntry, ReplyValue, Snapshot } from '../../wasm/protocol';
import { parseActionLine } from '../../web/src/lessons/actions';
import { parseLesson } from '../../web/src/lessons/parse';
import {
  LESSON_EPOCH_MS, actionsAtEntry, autoBlocks, blocksOf, claimsOf, clickBlocks, focusOf, focusOn, stepActions,
} from '../../web/src/lessons/plan';
import { answerFits, compare, needsAof, needsSlabs, probeRoots, readProbe, readSlabs, showValue, slabItem } from '../../web/src/lessons/probe';
import { LessonError, type Lesson, type PredictBlock } from '../../web/src/lessons/types';
import { emptyLog, newSession } from './helpers';
import { lessonFiles, tutorialsRoot } from './lessonfiles';

const root = tutorialsRoot;


function load(file: string): Lesson {
  return parseLesson(readFileSync(join(root, file), 'utf8'), `tutorials/${file}`);
}

const FRONT = '---\nid: demo\ntitle: A demo\nlevel: beginner\nviews: [console, scan]\nseed: 5\n---\n';

function parse(body: string, front = FRONT): Lesson {
  return parseLesson(front + body, 'tutorials/en/demo.md');
}

function errorOf(fn: () => unknown): LessonError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LessonError) return e;
    throw e;
  }
  throw new Error('expected a LessonError');
}

describe('the lesson parser', () => {
  it('reads the front matter and splits the body into steps at level-2 headings', () => {
    const l = parse('Intro text.\n\n## First\n\nHello **there**.\n\n## Second `step`\n\nBye.\n',
      '---\nid: demo\ntitle: "A demo"\nlevel: advanced\nviews: [scan, console]\norder: 3\nsummary: One *line*.\n---\n');
    expect(l).toMatchObject({ id: 'demo', lang: 'en', title: 'A demo', level: 'advanced', seed: 1, order: 3 });
    expect(l.views).toEqual(['console', 'scan']);
    expect(l.summary).toEqual([{ t: 'text', v: 'One ' }, { t: 'em', c: [{ t: 'text', v: 'line' }] }, { t: 'text', v: '.' }]);
    expect(l.intro).toEqual([{ t: 'p', c: [{ t: 'text', v: 'Intro text.' }] }]);
    expect(l.steps.map((s) => s.title)).toEqual(['First', 'Second step']);
    expect(l.steps[0].items).toEqual([{ kind: 'prose', nodes: [{ t: 'p', c: [
      { t: 'text', v: 'Hello ' }, { t: 'strong', c: [{ t: 'text', v: 'there' }] }, { t: 'text', v: '.' },
    ] }] }]);
  });

  it('turns each kind of glasskv block into actions, with stable keys and auto flags', () => {
    const l = parse([
      '## One', '',
      '```glasskv do auto', 'add 100 prefix=u', 'wait 250ms', '```', '',
      '```glasskv run', 'SET a 1', 'GET a', '```', '',
      '```glasskv expect', 'reply = 1', 'ht.keys >= 101', '```', '',
      '```glasskv config', 'hz 20', '```', '',
      '```glasskv focus', 'scan.cursor, ht.table.1', '```', '',
      '```glasskv predict', 'question: Which *cursor*?', 'choices: 0 | 4 = four', 'do: scan-step 2',
      'answer: scan.cursor', 'explain: Because.', '```', '',
      '```js', 'not a block', '```', '',
    ].join('\n'));
    const blocks = blocksOf(l.steps[0]);
    expect(blocks.map((b) => [b.key, b.type])).toEqual([
      ['0.0', 'do'], ['0.1', 'run'], ['0.2', 'expect'], ['0.3', 'config'], ['0.4', 'focus'], ['0.5', 'predict'],
    ]);
    expect(autoBlocks(l.steps[0]).map((b) => b.key)).toEqual(['0.0']);
    expect(clickBlocks(l.steps[0]).map((b) => b.key)).toEqual(['0.1', '0.3', '0.5']);
    expect(stepActions(l.steps[0])).toEqual([
      { kind: 'populate', db: 0, n: 100, prefix: 'u' },
      { kind: 'wait', ns: 250e6 },
      { kind: 'console', text: 'SET a 1\nGET a' },
      { kind: 'config', name: 'hz', value: '20' },
      { kind: 'scanStep' }, { kind: 'scanStep' },
    ]);
    expect(blocks[2]).toMatchObject({ checks: [
      { probe: 'reply', op: '=', value: '1', line: 21 }, { probe: 'ht.keys', op: '>=', value: '101', line: 22 },
    ] });
    expect(blocks[4]).toMatchObject({ targets: ['scan.cursor', 'ht.table.1'] });
    const p = blocks[5] as PredictBlock;
    expect(p.choices).toEqual([{ value: '0', label: '0' }, { value: '4', label: 'four' }]);
    expect(p.question).toEqual([{ t: 'text', v: 'Which ' }, { t: 'em', c: [{ t: 'text', v: 'cursor' }] }, { t: 'text', v: '?' }]);
    expect(l.steps[0].items.at(-1)).toEqual({ kind: 'prose', nodes: [{ t: 'code', lang: 'js', v: 'not a block' }] });
  });

  it('turns the AOF pane\'s buttons and the lab\'s next part into actions of the input log', () => {
    const l = parse(['## One', '', '```glasskv do', 'disk slow-fsync', 'disk-free 8', 'crash process', 'crash power',
      'restart', 'lab rtt', 'lab-next', '```', ''].join('\n'));
    expect(stepActions(l.steps[0])).toEqual([
      { kind: 'disk', preset: 'slow-fsync' }, { kind: 'diskFree', bytes: 8 }, { kind: 'crash', mode: 'process' },
      { kind: 'crash', mode: 'power' }, { kind: 'restart' }, { kind: 'lab', name: 'rtt' }, { kind: 'labNext' },
    ]);
  });

  it('names another server by its port: its disk, its machine, a client program for it', () => {
    const l = parse(['## One', '', '```glasskv do', 'server port=6380', 'disk-free 1000 port=6380', 'disk hdd port=6380',
      'machine vm.overcommit_memory 1', 'machine mem-total 32mb port=6380', 'workload benchmark command=MSET port=6380',
      '```', ''].join('\n'));
    expect(stepActions(l.steps[0])).toEqual([
      { kind: 'server', port: 6380 }, { kind: 'diskFree', bytes: 1000, port: 6380 }, { kind: 'disk', preset: 'hdd', port: 6380 },
      { kind: 'machine', name: 'vm.overcommit_memory', value: '1' },
      { kind: 'machine', name: 'mem-total', value: '32mb', port: 6380 },
      { kind: 'workload', preset: 'benchmark', port: 6380, command: 'MSET' },
    ]);
    expect(() => parse(['## One', '', '```glasskv do', 'machine vm.swappiness 1', '```', ''].join('\n')))
      .toThrow(/machine takes one of vm.overcommit_memory/);
  });

  it('drops raw HTML, unsafe links and images, and decodes character references', () => {
    const l = parse([
      '## Step', '',
      '<div onclick="x()">block <b>html</b></div>', '',
      'Text <b>bold</b> <script>alert(1)</script> &amp; &lt;ok&gt; <img src=x onerror=alert(2)>', '',
      '[bad](javascript:alert(3)) [good](https://redis.io/docs/) [local](#top) ![pic](x.png)', '',
      '<style>p { color: red }</style>', '',
      '`<b>code</b>`', '',
    ].join('\n'));
    const json = JSON.stringify(l);
    expect(json).not.toMatch(/<div|<b>html|<script|alert\(1\)|onerror|javascript:|<style|color: red/i);
    const paras = l.steps[0].items.flatMap((i) => (i.kind === 'prose' ? i.nodes : []));
    expect(paras).toEqual([
      { t: 'p', c: [{ t: 'text', v: 'Text bold  & <ok> ' }] },
      { t: 'p', c: [
        { t: 'text', v: 'bad ' }, { t: 'link', href: 'https://redis.io/docs/', c: [{ t: 'text', v: 'good' }] },
        { t: 'text', v: ' ' }, { t: 'link', href: '#top', c: [{ t: 'text', v: 'local' }] }, { t: 'text', v: ' pic' },
      ] },
      { t: 'p', c: [{ t: 'code', v: '<b>code</b>' }] },
    ]);
  });

  it('names the file and line of a mistake', () => {
    const at = (body: string, front = FRONT) => errorOf(() => parse(body, front));
    expect(at('## S\n\n```glasskv do\nadd 10\nfly away\n```\n').message).toBe('tutorials/en/demo.md:12: unknown action "fly" '
      + '(add, delete, rehash-step, active-rehashing, scan-start, scan-step, scan-finish, wait, next-event, '
      + 'next-iteration, workload, workload-stop, lab, lab-next, disk, disk-free, machine, crash, restart, server, mc-start, mc, '
      + 'mc-set, mc-fill)');
    expect(at('## S\n\n```glasskv expect\nreply = 1\n```\n').line).toBe(10);
    expect(at('## S\n\n```glasskv wiggle\nx\n```\n').message).toMatch(/:10: unknown block "glasskv wiggle"/);
    expect(at('## S\n\n```glasskv predict\nquestion: Q?\nrun: PING\n```\n').message).toMatch(/needs "answer:"/);
    expect(at('## S\n\n```glasskv predict\nquestion: Q?\nrun: PING\nanswer: replies[0]\n```\n').message)
      .toMatch(/:13: a probe starts with one of reply, scan, ht, config/);
    expect(at('## S\n\n```glasskv focus\nscan.nowhere\n```\n').message).toMatch(/:11: unknown focus target "scan.nowhere"/);
    expect(at('```glasskv run\nPING\n```\n').message).toMatch(/belong to a step/);
    expect(at('## S\n\n```glasskv run\nPING\n```\n\n```glasskv run auto\nPING\n```\n').message).toMatch(/:14: auto blocks run as the step opens/);
    expect(at('## S\n', FRONT.replace('id: demo', 'id: other')).message).toMatch(/differs from the file name/);
    expect(at('## S\n', FRONT.replace('seed: 5', 'sede: 5')).message).toMatch(/:6: unknown front matter key "sede"/);
    expect(at('## S\n', FRONT.replace('[console, scan]', '[console, disk]')).message).toMatch(/unknown view "disk"/);
    expect(at('## S\n\n```glasskv do\ncrash gently\n```\n').message).toMatch(/:11: crash takes process .* or power/);
    expect(at('## S\n\n```glasskv do\ndisk floppy\n```\n').message).toMatch(/:11: disk takes one of nvme, ssd, hdd, slow-fsync/);
    expect(at('## S\n\n```glasskv do\nrestart now\n```\n').message).toMatch(/:11: restart takes nothing/);
    expect(at('No steps here.\n').message).toMatch(/at least one step/);
    expect(errorOf(() => parseLesson('# no front matter', 'tutorials/en/demo.md')).line).toBe(1);
  });

  it('gives every question the type its answer is checked against before anything runs', () => {
    const predict = (...lines: string[]) => blocksOf(parse(['## S', '', '```glasskv predict', 'question: Q?',
      ...lines, 'do: scan-step', 'answer: scan.cursor', '```', ''].join('\n')).steps[0])[0] as PredictBlock;
    expect(predict('choices: 0 | 4').answerType).toBe('choice');
    expect(predict('type: number').answerType).toBe('number');
    expect(predict('type: text').answerType).toBe('text');
    const at = (...lines: string[]) => errorOf(() => predict(...lines)).message;
    expect(at()).toMatch(/:10: a question without choices needs "type: number" or "type: text"/);
    expect(at('type: float')).toMatch(/:12: type is number or text, not "float"/);
    expect(at('choices: 0 | 4', 'type: number')).toMatch(/:13: a question with choices is answered by picking one/);
    expect([answerFits('number', '42'), answerFits('number', ' -0.5 '), answerFits('number', 'abc'),
      answerFits('number', '4,369'), answerFits('number', ''), answerFits('text', 'abc'), answerFits('text', '  '),
      answerFits('choice', '4')]).toEqual([true, true, false, false, false, true, false, true]);
  });
});

describe('what a step points at', () => {
  it('a focus block after a block the reader runs points only once that block has run', () => {
    const l = parse([
      '## One', '',
      '```glasskv do auto', 'wait 1s', '```', '',
      '```glasskv focus', 'scan.controls', '```', '',
      '```glasskv run', 'SET a 1', '```', '',
      '```glasskv focus', 'scan.cursor, ht.table.1', '```', '',
      '```glasskv predict', 'question: Which?', 'choices: 0 | 1', 'do: scan-step', 'answer: scan.cursor', '```', '',
      '```glasskv focus', 'scan.keys', '```', '',
    ].join('\n'));
    const step = l.steps[0];
    expect(focusOf(step)).toEqual(['scan.controls', 'scan.cursor', 'ht.table.1', 'scan.keys']);
    expect(focusOn(step, 0)).toEqual(['scan.controls']);
    expect(focusOn(step, 1)).toEqual(['scan.controls', 'scan.cursor', 'ht.table.1']);
    expect(focusOn(step, 2)).toEqual(focusOf(step));
  });

  it('the power-loss step of the AOF lesson points at the report only after its crash', () => {
    const l = load('en/aof-fsync.md');
    const step = l.steps.find((s) => s.title.startsWith('Power loss'))!;
    expect(focusOf(step)).toEqual(['aof.report']);
    expect(focusOn(step, 0)).toEqual([]);
    expect(focusOn(step, 1)).toEqual([]);
    expect(focusOn(step, clickBlocks(step).length)).toEqual(['aof.report']);
  });
});

describe('probes', () => {
  it('read replies and snapshots by path and compare as numbers or as text', () => {
    const roots = probeRoots(null, ['17', ['a', 'b', 'c']]);
    expect(readProbe('reply[0]', roots)).toBe('17');
    expect(readProbe('reply[1].length', roots)).toBe(3);
    expect(readProbe('reply[1][2]', roots)).toBe('c');
    expect(readProbe('reply[2]', roots)).toBeUndefined();
    expect(readProbe('scan.cursor', roots)).toBeUndefined();
    expect(compare('17', '=', ' 17 ')).toBe(true);
    expect(compare('17', '=', '17.0')).toBe(true);
    expect(compare('hashtable', '=', '"HashTable"')).toBe(true);
    expect(compare(3, '>', '2')).toBe(true);
    expect(compare('yes', '>', '2')).toBe(false);
    expect(compare(undefined, '!=', '1')).toBe(false);
    expect(showValue(['0', ['x']])).toBe('0, x');
    expect(showValue(null)).toBe('(nil)');
    expect(() => readProbe('replies[0]', roots)).toThrow(/a probe starts with/);
    expect(() => readProbe('reply..x', roots)).toThrow(/not a probe path/);
    expect(() => readProbe('reply[1]length', roots)).toThrow(/not a probe path/);
  });
});

describe('the server probes', () => {
  it('server.busy reads the iteration that ran the console\'s last command, though its calls start after the world\'s clock', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(4));
    const busy = (text: string) => readProbe('server.busy', probeRoots(session.act({ kind: 'console', text }).snapshot, undefined));
    // *4 $4 ZADD $4 KEY0 $1 0 $4 DATA: 4 + 10 + 10 + 7 + 10 bytes.
    expect(busy('ZADD KEY0 0 DATA\nZADD KEY1 0 DATA')).toEqual({ commands: 2, reads: 1, bytes: 2 * 41 });
    // *2 $5 ZCARD $4 KEY0: 4 + 11 + 10 bytes, read once, one command.
    expect(busy('ZCARD KEY0')).toEqual({ commands: 1, reads: 1, bytes: 25 });
    // A script's redis.call runs a command of its own.
    expect(busy(`EVAL "return redis.call('zcard', KEYS[1]) + redis.call('zcard', KEYS[2])" 2 KEY0 KEY1`))
      .toMatchObject({ commands: 3, reads: 1 });
  });
});

describe('Slabs probes and memcached action lines', () => {
  it('read the classes, the totals and where an item of given sizes lands, as the engine reports them', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    const ask = (paths: string[]) => readSlabs(paths, (q) => session.slabs(q));
    const roots = async (...paths: string[]) => probeRoots(session.snapshot(), undefined, null, await ask(paths));
    expect(needsSlabs('slabs.class[1].chunk')).toBe(true);
    expect(needsSlabs('aof.on')).toBe(false);
    expect(slabItem('k10_v100')).toEqual({ nkey: 10, vlen: 100, flags: 0 });
    expect(slabItem('k2_v100_f5')).toEqual({ nkey: 2, vlen: 100, flags: 5 });
    expect(slabItem('class')).toBeNull();
    expect(readProbe('slabs.running', await roots('slabs.running'))).toBe('no');

    for (const a of parseActionLine('mc-start -m 16 -f 1.25')) session.act(a);
    let r = await roots('slabs.item.k10_v100.class', 'slabs.item.k2_v100_f5.ntotal');
    expect(readProbe('slabs.running', r)).toBe('yes');
    // memcached 1.6.18 -vv: 39 classes, class 1 is 96 bytes and 10922 per page.
    expect(readProbe('slabs.classes', r)).toBe(39);
    expect(readProbe('slabs.class[1].chunk', r)).toBe(96);
    expect(readProbe('slabs.class[1].perslab', r)).toBe(10922);
    expect(readProbe('slabs.class[5].perslab', r)).toBe(4369);
    expect(readProbe('slabs.total.limit', r)).toBe(16 << 20);
    expect(readProbe('slabs.active', r)).toBe(0);
    // 48 + 10+1 + 100+2 + 8 = 169: class 4 (192). Flags 5 add 4 bytes: 165.
    expect(readProbe('slabs.item.k10_v100.class', r)).toBe(4);
    expect(readProbe('slabs.item.k10_v100.waste', r)).toBe(192 - 169);
    expect(readProbe('slabs.item.k2_v100_f5.ntotal', r)).toBe(165);

    for (const a of parseActionLine('mc-set user:1 100')) session.act(a);
    for (const a of parseActionLine('mc get user:1\\nversion')) session.act(a);
    r = await roots('slabs.total');
    expect(readProbe('slabs.class[4].used', r)).toBe(1);
    expect(readProbe('slabs.class[4].pages', r)).toBe(1);
    expect(readProbe('slabs.class[4].free', r)).toBe(5461 - 1);
    expect(readProbe('slabs.total.malloced', r)).toBe(1 << 20);
    expect(readProbe('slabs.total.items', r)).toBe(1);
    const view = session.slabs({ what: 'view', cls: 1, from: 0, pages: 0 });
    expect(view.console.at(-1)!.output).toMatch(/^VALUE user:1 0 100\r\nx{100}\r\nEND\r\nVERSION /);

    // A shift from small to large values on a small node: calcification.
    for (const a of parseActionLine('mc-start -m 8')) session.act(a);
    const fill = parseActionLine('mc-fill shift 100 4000 total=40000 keys=4000');
    expect(fill).toHaveLength(1);
    for (const a of fill) session.act(a);
    r = await roots('slabs.calcified');
    expect(readProbe('slabs.calcified', r)).toBe('yes');
    expect(readProbe('slabs.total.evictions', r)).toBeGreaterThan(0);
    const evicting = readProbe('slabs.evicting', r) as number[];
    expect(readProbe(`slabs.class[${evicting[0]}].free`, r)).toBe(0);
    expect((readProbe('slabs.idle', r) as number[]).length).toBeGreaterThan(0);
  });

  it('refuse lines memcached would refuse or that name nothing', () => {
    expect(() => parseActionLine('mc-start -x 3')).toThrow(/mc-start takes memcached's/);
    expect(() => parseActionLine('mc-start -m')).toThrow(/-m needs a value/);
    expect(() => parseActionLine('mc-fill zipf 1 2 total=5')).toThrow(/distribution/);
    expect(() => parseActionLine('mc-fill shift 100 total=5')).toThrow(/shift FROM TO/);
    expect(() => parseActionLine('mc-set k')).toThrow(/a key/);
    expect(() => parseActionLine('mc')).toThrow(/protocol line/);
    expect(parseActionLine('mc-start -I 2m -o slab_chunk_max=512k -C')).toEqual([{ kind: 'mcStart',
      options: { m: 64, n: 48, f: 1.25, I: 2 << 20, chunkMax: 512 << 10, noCas: true } }]);
    // More sets than one action may send go in slices.
    const slices = parseActionLine('mc-fill fixed 100 total=2000000');
    expect(slices.map((a) => (a as { count: number }).count)).toEqual([1_048_576, 2_000_000 - 1_048_576]);
  });
});

describe('AOF probes', () => {
  it('read where acknowledged bytes are, the threads, and what a restart kept', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    const roots = () => probeRoots(session.snapshot(), undefined, session.aof());
    expect(readProbe('aof.on', roots())).toBe('no');
    expect(needsAof('aof.on')).toBe(true);
    expect(needsAof('reply[0]')).toBe(false);
    session.act({ kind: 'config', name: 'appendonly', value: 'yes' });
    session.act({ kind: 'wait', ns: 1e9 });
    session.act({ kind: 'config', name: 'appendfsync', value: 'always' });
    session.act({ kind: 'console', text: 'SET a 1' });
    expect(readProbe('aof.on', roots())).toBe('yes');
    expect(readProbe('aof.last', roots())).toBe('disk');
    expect(readProbe('aof.at_risk', roots())).toBe(0);
    expect(readProbe('aof.commands', roots())).toBe(2);
    expect(readProbe('threads.count', roots())).toBe(4);
    expect(readProbe('threads.bio_aof_fsync.done', roots())).toBe(0);
    session.act({ kind: 'config', name: 'appendfsync', value: 'no' });
    session.act({ kind: 'console', text: 'SET b 2' });
    expect(readProbe('aof.last', roots())).toBe('page-cache');
    expect(readProbe('aof.at_risk', roots())).toBeGreaterThan(0);
    session.act({ kind: 'crash', mode: 'power' });
    expect(readProbe('aof.up', roots())).toBe('no');
    expect(readProbe('crash.mode', roots())).toBe('power');
    expect(readProbe('recovery', roots())).toBeNull();
    session.act({ kind: 'restart' });
    expect(readProbe('recovery.kept_keys', roots())).toEqual(['a']);
    expect(readProbe('recovery.lost_keys', roots())).toEqual(['b']);
    expect(readProbe('recovery.survived', roots())).toBe(1);
  });
});

describe('the hash table view after a restart', () => {
  it('shows the restarted server\'s buckets, not those cached before the crash', async () => {
    const actions: Action[] = [
      { kind: 'config', name: 'appendonly', value: 'yes' }, { kind: 'wait', ns: 1e9 },
      { kind: 'console', text: 'SET user:1 a\nSET user:2 b\nSET cart:1 c\nSET cart:2 d' },
      { kind: 'crash', mode: 'process' }, { kind: 'restart' },
    ];
    const stepwise = newSession();
    await stepwise.session.boot(emptyLog(1));
    for (const a of actions) stepwise.session.act(a);
    const once = newSession();
    const r = await once.session.boot(emptyLog(1), actions);
    const strip = (s: Snapshot) => s.dict?.tables[0] && Array.from(s.dict.tables[0].entries);
    expect(strip(stepwise.session.snapshot())).toEqual(strip(r.snapshot));
  });
});

/** What must be identical between two ways of reaching a step: the
 *  keyspace, the walker, and the server's persistence (up or down, the AOF
 *  stream's offsets, the last crash and its recovery report). */
function essence(s: Snapshot, aof: AofView, mc: SlabsView) {
  const t = (i: number) => {
    const x = s.dict?.tables[i];
    return x && { size: x.size, used: x.used, entries: Array.from(x.entries), filled: Array.from(x.filled) };
  };
  return {
    now: s.now, memory: s.memory, prompt: s.prompt, rehashidx: s.dict?.rehashidx, t0: t(0), t1: t(1),
    scan: s.scan && { ...s.scan }, config: s.config, logLength: s.logLength,
    aof: { up: aof.up, appendonly: aof.appendonly, info: aof.info, crash: aof.crash, report: aof.report, disk: aof.disk },
    mc: { running: mc.running, options: mc.options, classes: mc.classes, totals: mc.totals, fill: mc.fill },
  };
}

function mcView(session: ReturnType<typeof newSession>['session']): SlabsView {
  return session.slabs({ what: 'view', cls: 1, from: 0, pages: 0 });
}

function lastReply(entries: readonly ConsoleEntry[]): ReplyValue | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].reply !== undefined) return entries[i].reply;
  return undefined;
}

const files = lessonFiles();

describe('the lessons in tutorials/', () => {
  it('all parse, and every lesson exists in English and in Korean', () => {
    expect(files.length).toBeGreaterThan(0);
    const ids = (lang: string) => files.filter((f) => f.startsWith(`${lang}/`)).map((f) => load(f).id).sort();
    expect(ids('ko')).toEqual(ids('en'));
  });

  for (const file of files.filter((f) => f.startsWith('ko/'))) {
    it(`${file} runs the same actions, questions and claims as its English version, so the English walk below checks it too`, () => {
      const ko = load(file);
      const en = load(file.replace(/^ko\//, 'en/'));
      expect(ko.seed).toBe(en.seed);
      expect(ko.views).toEqual(en.views);
      expect(ko.steps.length).toBe(en.steps.length);
      const shape = (l: Lesson) => l.steps.map((s) => blocksOf(s).map((b) => {
        switch (b.type) {
          case 'predict': return { key: b.key, actions: b.actions, answer: b.answer, answerType: b.answerType,
            choices: b.choices?.map((c) => c.value) ?? null };
          case 'expect': return { key: b.key, checks: b.checks.map((c) => [c.probe, c.op, c.value]) };
          case 'focus': return { key: b.key, targets: b.targets };
          default: return { key: b.key, type: b.type, auto: b.auto, actions: b.actions };
        }
      }));
      expect(shape(ko)).toEqual(shape(en));
    });
  }

  // Every step is rebuilt twice from a clean world, so a heavy block costs
  // twice again for each step after it: the EVAL lesson's two endless
  // scripts take about 2.5 s each, and six steps follow the first, so its
  // walk takes about 70 s, past Vitest's 60 s. A Korean lesson runs the
  // very actions, answers and checks of its English version (the test
  // above), from the same seed: its walk would be the English one again.
  for (const file of files.filter((f) => f.startsWith('en/'))) {
    it(`${file}: every step rebuilt from a clean state matches the walk, and every claim and answer holds`, async () => {
      const lesson = load(file);
      const config = { ...emptyLog(lesson.seed).config, unixMsAtZero: LESSON_EPOCH_MS };
      const walk = newSession();
      await walk.session.boot({ version: 1, config, entries: [] });
      const atEntry: ReturnType<typeof essence>[] = [];
      const failures: string[] = [];
      for (const step of lesson.steps) {
        const claims = claimsOf(step);
        const run = (block: (typeof claims)[number]['block']) => {
          const out: ConsoleEntry[] = [];
          for (const a of block.actions) out.push(...walk.session.act(a).console);
          return out;
        };
        const check = async (entry: (typeof claims)[number], out: ConsoleEntry[]) => {
          const probes = [...entry.expects.flatMap((e) => e.checks.map((c) => c.probe)),
            ...(entry.block.type === 'predict' ? [entry.block.answer] : [])];
          const aof = probes.some(needsAof) ? walk.session.aof() : null;
          const slabs = await readSlabs(probes, (q) => walk.session.slabs(q));
          const roots = probeRoots(walk.session.snapshot(), lastReply(out), aof, slabs);
          for (const e of entry.expects) {
            for (const c of e.checks) {
              const v = readProbe(c.probe, roots);
              if (!compare(v, c.op, c.value)) failures.push(`line ${c.line}: ${c.probe} ${c.op} ${c.value}, but it is ${showValue(v)}`);
            }
          }
          if (entry.block.type === 'predict') {
            const v = readProbe(entry.block.answer, roots);
            if (v === undefined) failures.push(`line ${entry.block.line}: ${entry.block.answer} reads nothing`);
            const choices = entry.block.choices;
            if (choices && !choices.some((c) => compare(v, '=', c.value))) {
              failures.push(`line ${entry.block.line}: the engine's answer ${showValue(v)} is not among the choices`);
            }
            if (entry.block.answerType === 'number' && !answerFits('number', showValue(v))) {
              failures.push(`line ${entry.block.line}: a number question, but the engine's answer is ${showValue(v)}`);
            }
          }
        };
        for (const c of claims.filter((x) => x.block.auto)) await check(c, run(c.block));
        atEntry.push(essence(walk.session.snapshot(), walk.session.aof(), mcView(walk.session)));
        for (const c of claims.filter((x) => !x.block.auto)) await check(c, run(c.block));
      }
      expect(failures).toEqual([]);

      for (let k = 0; k < lesson.steps.length; k++) {
        const fresh = newSession();
        const r = await fresh.session.boot({ version: 1, config, entries: [] }, actionsAtEntry(lesson, k));
        expect(essence(r.snapshot, fresh.session.aof(), mcView(fresh.session)), `step ${k + 1} of ${file}`).toEqual(atEntry[k]);
        expect(fresh.events.filter((e) => e.type === 'diverged')).toEqual([]);
        const replayed = newSession();
        const again = await replayed.session.boot({ version: 1, config, entries: [...fresh.session.entries] });
        expect(essence(again.snapshot, replayed.session.aof(), mcView(replayed.session))).toEqual(atEntry[k]);
      }
    }, 300_000);
  }
});
