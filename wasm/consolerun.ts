// The console connection, driven as redis-cli drives its socket: each line
// is split by the C code that implements redis-cli's syntax (a leading
// repeat count included), all lines of one input go out as a single
// pipelined write, and each reply is printed by the C formatter, raw for
// the commands redis-cli prints raw, so the transcript shows exactly what
// redis-cli --no-raw prints.
import { CLI_BAD_REPEAT, type Glasskv, type World } from './engine';
import { exchange, replyEnds } from './driver';
import {
  concat, encodeRequest, isOutOfBand, parseReply, parseRequest, pubsubKind, type Reply,
} from './resp';
import { DEFAULT_PORT, promptFor, type ConsoleEntry, type ConsoleStatus, type ReplyValue } from './protocol';

/** Output lines kept per reply; the rest is counted, not shown. */
export const MAX_OUTPUT_LINES = 2000;
/** Replies up to this many bytes are also kept decoded (ConsoleEntry.reply). */
export const MAX_DECODED_REPLY = 16 * 1024;

const textDecoder = new TextDecoder();
const MINUS = 45;
const PIPE = 124;   // a RESP3 attribute
const BANG = 33;    // a RESP3 blob error

interface Line {
  text: string;
  argv: string[];
  /** The request for one copy of the command; null for a line redis-cli
   *  refuses without sending anything. */
  resp: Uint8Array | null;
  raw: boolean;
  repeat: number;
  refusal: string;
}

const SUBSCRIBES = new Set(['subscribe', 'psubscribe', 'ssubscribe']);
/** What redis-cli prints before it starts reading a subscription's
 *  confirmations and messages. */
const READING = 'Reading messages... (press Ctrl-C to quit)\n';

/** The count a confirmation ends with, or null for one with a null name
 *  (an unsubscription from nothing). */
function confirmedCount(r: Reply): number | null {
  if ((r.type !== 'array' && r.type !== 'push') || !r.value) return null;
  const [, name, count] = r.value;
  if (name.type === 'null' || (name.type === 'bulk' && name.value === null)) return null;
  return count.type === 'int' ? Number(count.value) : null;
}

/** A cursor over the replies in a buffer. */
class ReplyStream {
  private at = 0;

  constructor(private readonly buf: Uint8Array) {}

  /** The next complete reply, not taken yet. */
  peek(): { bytes: Uint8Array; reply: Reply; end: number } | null {
    const r = parseReply(this.buf, this.at);
    return r && { bytes: this.buf.subarray(this.at, r.end), reply: r.reply, end: r.end };
  }

  take(p: { end: number }): void {
    this.at = p.end;
  }

  /** Bytes taken so far. */
  get taken(): number {
    return this.at;
  }
}

const INVALID = 'Invalid argument(s)';
const BAD_REPEAT = 'Invalid redis-cli repeat command option value.';

function ascii(b: Uint8Array): string {
  return textDecoder.decode(b);
}

/** The text for display: CRLF as LF, no final newline, at most
 *  MAX_OUTPUT_LINES lines (the rest counted). */
function clip(text: string): { output: string; omittedLines: number } {
  const lf = text.replace(/\r\n/g, '\n');
  const body = lf.endsWith('\n') ? lf.slice(0, -1) : lf;
  let cut = -1;
  let lines = 1;
  for (let i = 0; i < body.length; i++) {
    if (body.charCodeAt(i) !== 10) continue;
    if (lines === MAX_OUTPUT_LINES) {
      cut = i;
      break;
    }
    lines++;
  }
  if (cut < 0) return { output: body, omittedLines: 0 };
  let omitted = 1;
  for (let i = cut + 1; i < body.length; i++) if (body.charCodeAt(i) === 10) omitted++;
  return { output: body.slice(0, cut), omittedLines: omitted };
}

function toValue(r: Reply): ReplyValue {
  switch (r.type) {
    case 'status':
      return r.value;
    case 'error':
      return { error: r.value };
    case 'int':
      return r.value >= BigInt(Number.MIN_SAFE_INTEGER) && r.value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(r.value) : r.value.toString();
    case 'bulk':
      return r.value === null ? null : textDecoder.decode(r.value);
    case 'array':
      return r.value === null ? null : r.value.map(toValue);
    // RESP3 values take the shape RESP2 gives them: a map as its flat list
    // of keys and values, a double or big number as text, a boolean as 1/0.
    case 'map':
    case 'set':
    case 'push':
      return r.value.map(toValue);
    case 'double':
    case 'bignum':
      return r.value;
    case 'bool':
      return r.value ? 1 : 0;
    case 'null':
      return null;
  }
}

/** One reply decoded into plain values, when it is small enough to keep. */
export function decodeSmallReply(reply: Uint8Array): ReplyValue | undefined {
  if (reply.length > MAX_DECODED_REPLY) return undefined;
  const parsed = parseReply(reply, 0);
  return parsed ? toValue(parsed.reply) : undefined;
}

/** The console: redis-cli on a connection of its own. Its connection, the
 *  count of entries it printed and the db its prompt shows are kept in the
 *  session's record in the engine (gkSession), so a checkpoint restores
 *  them with the rest of the world. */
export class ConsoleRunner {
  private readonly gk: Glasskv;
  private readonly world: World;
  private readonly node: number;

  constructor(gk: Glasskv, world: World, node: number) {
    this.gk = gk;
    this.world = world;
    this.node = node;
    if (world.session().consoleConn < 0) world.setSession({ consoleConn: world.openConn(node) });
  }

  private get conn(): number {
    return this.world.session().consoleConn;
  }

  /** The db redis-cli believes it is in (shown in the prompt). */
  get db(): number {
    return this.world.session().consoleDb;
  }

  private set db(db: number) {
    this.world.setSession({ consoleDb: db });
  }

  get prompt(): string {
    const port = this.world.session().consolePort;
    return promptFor(this.db, port === 0 ? DEFAULT_PORT : port > 0 ? port : -1);
  }

  /** Whether redis-cli was sent elsewhere than the page's first server
   *  (CONNECT). */
  get elsewhere(): boolean {
    return this.world.session().consolePort !== 0;
  }

  /** The node redis-cli talks to now: the page's first server, the one
   *  CONNECT chose, or -1 while it is not connected. */
  targetNode(): number {
    const port = this.world.session().consolePort;
    return port === 0 ? this.node : port > 0 ? this.world.serverOnPort(port) : -1;
  }

  /** redis-cli's CONNECT host port, typed in its prompt: it leaves its
   *  server for the one at host:port. Every server of the world is on one
   *  machine, 127.0.0.1 (localhost); a port nobody listens on refuses, and
   *  redis-cli then says "not connected" and tries again at each command. */
  private connect(text: string, host: string, portText: string): ConsoleEntry {
    const prompt = this.prompt;
    const port = Number(portText);
    const conn = this.conn;
    if (conn >= 0) this.world.closeConn(conn);
    this.world.setSession({ consoleConn: -1, consoleDb: 0 });
    const local = host === '127.0.0.1' || host === 'localhost';
    const valid = /^\d+$/.test(portText) && port > 0 && port < 65536;
    const why = !valid ? 'Name or service not known'
      : !local ? (/^\d+\.\d+\.\d+\.\d+$/.test(host) ? 'Connection timed out' : 'Name or service not known')
        : this.world.serverOnPort(port) < 0 ? 'Connection refused' : '';
    if (why) {
      this.world.setSession({ consolePort: -Math.max(1, valid ? port : DEFAULT_PORT) });
      return this.entry('console', prompt, text, `Could not connect to Redis at ${host}:${portText}: ${why}\n`,
        'error', 0);
    }
    this.world.setSession({ consolePort: port, consoleConn: this.world.openConn(this.world.serverOnPort(port)) });
    return this.entry('console', prompt, text, '', 'ok', 0);
  }

  /** Runs one input of one or more lines; returns one entry per non-blank
   *  line. `answered` is called once the replies are in, before the
   *  entries are made (a second connection's entries come first). */
  run(text: string, answered?: () => void): ConsoleEntry[] {
    const raw = text.split(/\r?\n/);
    const connects = raw.map((l) => /^\s*connect\s+(\S+)\s+(\S+)\s*$/i.exec(l));
    if (connects.some(Boolean)) {
      // CONNECT changes where the lines after it go: one line at a time.
      const out = raw.flatMap((l, i) => {
        const m = connects[i];
        if (m) return [this.connect(l, m[1], m[2])];
        return l.trim() ? this.run(l) : [];
      });
      answered?.();
      return out;
    }
    const reconnected = this.world.session().consolePort < 0 ? this.reconnectToPort() : this.reconnectIfClosed();
    if (this.conn < 0) {
      answered?.();
      const port = -this.world.session().consolePort;
      return raw.filter((l) => l.trim()).map((l) => this.entry('console', this.prompt, l,
        `Could not connect to Redis at 127.0.0.1:${port}: Connection refused\n`, 'error', 0));
    }
    const entries: ConsoleEntry[] = [];
    const early = this.unsolicited();
    if (early) entries.push(early);
    const lines = this.split(text);
    const requests: Uint8Array[] = [];
    let want = 0;
    for (const l of lines) {
      if (!l.resp) continue;
      for (let i = 0; i < l.repeat; i++) requests.push(l.resp);
      want += l.repeat;
    }
    const buf = want ? exchange(this.world, this.conn, concat(requests), want) : new Uint8Array(0);
    answered?.();
    const stream = new ReplyStream(buf);
    for (const line of lines) {
      const prompt = this.prompt;
      if (!line.resp) {
        entries.push(this.entry('console', prompt, line.text, line.refusal, 'invalid', 0));
        continue;
      }
      let out = '';
      let status: ConsoleStatus = 'ok';
      let last: Uint8Array | null = null;
      const cmd = (line.argv[0] ?? '').toLowerCase();
      for (let i = 0; i < line.repeat; i++) {
        if (SUBSCRIBES.has(cmd)) out += READING;
        const got = this.takeReplies(stream, cmd, line.argv.length - 1);
        out += got.pushed;
        if (!got.replies.length) {
          status = out ? status : 'noreply';
          continue;
        }
        for (const reply of got.replies) {
          if (reply[0] === MINUS) status = 'error';
          else if (status !== 'error') this.track(line.argv);
          out += this.format(reply, line.raw);
          last = reply;
        }
      }
      const { output, omittedLines } = clip(out);
      const entry = this.entry('console', prompt, line.text, output, status, omittedLines);
      const value = last ? decodeSmallReply(last) : undefined;
      if (value !== undefined) entry.reply = value;
      entries.push(entry);
    }
    if (reconnected && entries.length) entries[0].reconnected = true;
    return entries;
  }

  /** The replies one copy of a command takes from the stream, and the
   *  out-of-band pushes (messages) met on the way, formatted. A command
   *  takes one reply, except that SUBSCRIBE and its kin are answered by
   *  one confirmation per argument, and so are UNSUBSCRIBE and its kin --
   *  which, without arguments, are answered by one per subscription left,
   *  each saying one fewer (or one with a null name if there was none). */
  takeReplies(stream: ReplyStream, cmd: string, nargs: number):
    { replies: Uint8Array[]; pushed: string } {
    let pushed = '';
    const next = () => {
      for (let p = stream.peek(); p; p = stream.peek()) {
        if (!isOutOfBand(p.reply)) return p;
        pushed += this.format(p.bytes, false);
        stream.take(p);
      }
      return null;
    };
    const first = next();
    if (!first) return { replies: [], pushed };
    stream.take(first);
    const replies = [first.bytes];
    // An error, or +QUEUED inside MULTI, is the whole answer.
    if (pubsubKind(first.reply) !== cmd) return { replies, pushed };
    let count = confirmedCount(first.reply);
    for (let j = 1; nargs > 0 ? j < nargs : count !== null; j++) {
      const p = next();
      if (!p || pubsubKind(p.reply) !== cmd) break;
      const c = confirmedCount(p.reply);
      if (nargs === 0 && (c === null || count === null || c !== count - 1)) break;
      stream.take(p);
      replies.push(p.bytes);
      count = c;
    }
    return { replies, pushed };
  }

  /** What arrived on the console's connection after its last command was
   *  answered: messages of its subscriptions (or a reply that came late),
   *  printed as redis-cli prints what it reads in its "Reading messages"
   *  loop, as an entry of their own. Null if nothing came. */
  private unsolicited(): ConsoleEntry | null {
    if (!this.world.pending(this.conn)) return null;
    const buf = this.world.recv(this.conn);
    let text = '';
    for (let at = 0, r = parseReply(buf, 0); r; at = r.end, r = parseReply(buf, at))
      text += this.format(buf.subarray(at, r.end), false);
    const { output, omittedLines } = clip(text);
    return this.entry('console', '', '', output, 'ok', omittedLines);
  }

  split(text: string): Line[] {
    const lines: Line[] = [];
    for (const raw of text.split(/\r?\n/)) {
      const l = this.gk.cliLine(raw);
      if (!l) continue;
      if (l.argc < 0) {
        const refusal = l.argc === CLI_BAD_REPEAT ? BAD_REPEAT : INVALID;
        lines.push({ text: raw, argv: [], resp: null, raw: false, repeat: 0, refusal });
        continue;
      }
      const args = parseRequest(l.resp);
      lines.push({
        text: raw, argv: args ? args.map(ascii) : [], resp: l.resp, raw: l.raw, repeat: l.repeat, refusal: '',
      });
    }
    return lines;
  }

  /** Sends one command on behalf of a button, on connection `conn`, and
   *  returns its transcript entry. */
  runFor(source: ConsoleEntry['source'], conn: number, args: string[]): ConsoleEntry {
    const buf = exchange(this.world, conn, encodeRequest(args), 1);
    const ends = replyEnds(buf, 1);
    const input = args.join(' ');
    if (!ends.length) return this.entry(source, '', input, '', 'noreply', 0);
    const reply = buf.subarray(0, ends[0]);
    const status: ConsoleStatus = reply[0] === MINUS ? 'error' : 'ok';
    const { output, omittedLines } = clip(this.format(reply, false));
    const entry = this.entry(source, '', input, output, status, omittedLines);
    const value = decodeSmallReply(reply);
    if (value !== undefined) entry.reply = value;
    return entry;
  }

  /** A reply as redis-cli prints it. RESP3 has types redis-cli 7.0 cannot
   *  print: its hiredis refuses an attribute or a blob error, and it has no
   *  rendering for a big number; the console prints redis-cli's message. */
  format(reply: Uint8Array, raw: boolean): string {
    const { consumed, text } = this.gk.cliFormatReply(reply, raw);
    if (consumed > 0) return text;
    return reply[0] === PIPE || reply[0] === BANG
      ? `Error: Protocol error, got "${String.fromCharCode(reply[0])}" as reply type byte\n`
      : 'Unknown reply type: 13\n';
  }

  /** An entry for a button action that is not a single command. */
  note(source: ConsoleEntry['source'], input: string, extra: Partial<ConsoleEntry>): ConsoleEntry {
    return { ...this.entry(source, '', input, '', 'ok', 0), ...extra };
  }

  entry(source: ConsoleEntry['source'], prompt: string, input: string, output: string,
    status: ConsoleStatus, omittedLines: number): ConsoleEntry {
    const seq = this.world.session().consoleSeq + 1;
    this.world.setSession({ consoleSeq: seq });
    return { seq, source, prompt, input, output, status, omittedLines };
  }

  /** redis-cli reconnects for the next command after the server closed
   *  the connection; the new connection starts in db 0. */
  private reconnectIfClosed(): boolean {
    if (this.conn >= 0 && this.world.isOpen(this.conn)) return false;
    if (this.conn >= 0) this.world.closeConn(this.conn);
    const port = this.world.session().consolePort;
    const node = port > 0 ? this.world.serverOnPort(port) : this.node;
    if (node < 0) {
      this.world.setSession({ consoleConn: -1, consolePort: -port, consoleDb: 0 });
      return true;
    }
    this.world.setSession({ consoleConn: this.world.openConn(node), consoleDb: 0 });
    return true;
  }

  /** "not connected": connects to the port CONNECT named if a server
   *  listens there now. */
  private reconnectToPort(): boolean {
    const port = -this.world.session().consolePort;
    const node = this.world.serverOnPort(port);
    if (node < 0) return false;
    this.world.setSession({ consolePort: port, consoleConn: this.world.openConn(node), consoleDb: 0 });
    return true;
  }

  /** What redis-cli itself remembers from a successful command: the db of
   *  SELECT (and of RESET), for the prompt. Everything else the page shows
   *  about the server (its configuration included) is read from the engine. */
  private track(argv: string[]): void {
    const cmd = (argv[0] ?? '').toLowerCase();
    if (cmd === 'select' && argv.length === 2) this.db = Number.parseInt(argv[1], 10) || 0;
    else if (cmd === 'reset' && argv.length === 1) this.db = 0;
  }
}

/** A second redis-cli, typed into while the console's own command waits
 *  for a busy script: its first input opens a connection of its own, each
 *  input's lines go out as one write, and each line becomes an entry
 *  (source 'second') once all its replies have come. finish() reads what
 *  is left and closes the connection. */
export class SecondConsole {
  private conn = -1;
  private buf: Uint8Array = new Uint8Array(0);
  private readonly waiting: { line: Line; got: number; out: string; status: ConsoleStatus; last: Uint8Array | null }[] = [];
  /** The lines answered (or refused), in order. */
  readonly entries: ConsoleEntry[] = [];

  constructor(
    private readonly runner: ConsoleRunner,
    private readonly world: World,
    private readonly node: number,
    private readonly onEntry: (e: ConsoleEntry) => void = () => {},
  ) {}

  /** Sends one input (one or more lines) now. */
  send(text: string): void {
    // A connection the server closed is done with; the next line, as in
    // redis-cli, goes on a new one.
    if (this.conn >= 0 && !this.world.isOpen(this.conn)) this.finish();
    const lines = this.runner.split(text);
    const requests: Uint8Array[] = [];
    for (const line of lines) {
      if (!line.resp) {
        this.done(this.runner.entry('second', '', line.text, line.refusal, 'invalid', 0));
        continue;
      }
      for (let i = 0; i < line.repeat; i++) requests.push(line.resp);
      this.waiting.push({ line, got: 0, out: '', status: 'ok', last: null });
    }
    if (!requests.length) return;
    if (this.conn < 0) this.conn = this.world.openConn(this.node);
    this.world.send(this.conn, concat(requests));
  }

  /** Takes the replies that have arrived. */
  read(): void {
    if (this.conn < 0) return;
    const more = this.world.recv(this.conn);
    if (more.length) this.buf = this.buf.length ? concat([this.buf, more]) : more;
    const stream = new ReplyStream(this.buf);
    while (this.waiting.length) {
      const w = this.waiting[0];
      const cmd = (w.line.argv[0] ?? '').toLowerCase();
      const got = this.runner.takeReplies(stream, cmd, w.line.argv.length - 1);
      w.out += got.pushed;
      if (!got.replies.length) break;
      for (const reply of got.replies) {
        if (reply[0] === MINUS) w.status = 'error';
        w.out += this.runner.format(reply, w.line.raw);
        w.last = reply;
      }
      if (++w.got < w.line.repeat) continue;
      this.waiting.shift();
      this.done(this.lineEntry(w.line.text, w.out, w.status, w.last));
    }
    this.buf = this.buf.subarray(stream.taken);
  }

  /** Reads what is left; lines still unanswered get a no-reply entry;
   *  closes the connection. */
  finish(): void {
    this.read();
    for (const w of this.waiting.splice(0)) {
      this.done(this.lineEntry(w.line.text, w.out, w.out ? w.status : 'noreply', w.last));
    }
    if (this.conn >= 0) this.world.closeConn(this.conn);
    this.conn = -1;
    this.buf = new Uint8Array(0);
  }

  private lineEntry(text: string, out: string, status: ConsoleStatus, last: Uint8Array | null): ConsoleEntry {
    const { output, omittedLines } = clip(out);
    const entry = this.runner.entry('second', '', text, output, status, omittedLines);
    const value = last ? decodeSmallReply(last) : undefined;
    if (value !== undefined) entry.reply = value;
    return entry;
  }

  private done(e: ConsoleEntry): void {
    this.entries.push(e);
    this.onEntry(e);
  }
}
