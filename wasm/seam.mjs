#!/usr/bin/env node
// The seam between C and TypeScript, generated from its one declaration:
// engine/include/glasskv.h. Every struct, constant set and function that
// crosses the boundary is declared there once, in plain C with a comment on
// every field (the module's own calls in wasm/exports.c declare theirs in
// wasm/exports.h, the console's status codes are cliformat.h's); this
// script reads the headers and writes
//
//   web/src/wasm-gen/seam.ts     TypeScript interfaces (the C comments as
//                                their docs), readers and writers over a
//                                DataView at the wasm32 offsets, byte sizes
//                                and field offsets, the constant sets
//   web/src/wasm-gen/glasskv.d.mts
//                                the module's type: wasm/glasskv.d.ts with
//                                every C export the TypeScript side calls
//   build/wasm/seam.c            _Static_assert of every offset, size and
//                                constant the TypeScript side assumes, so a
//                                disagreement stops the build; and wrappers
//                                for the calls that take or return 64-bit
//                                integers (gkWorldNow -> gkwWorldNow), which
//                                this Emscripten (no BigInt integration)
//                                would split into halves: they cross as
//                                doubles, a uint64 seed as two 32-bit halves
//
// and returns the emcc export list: the functions of glasskv.h and the
// EMSCRIPTEN_KEEPALIVE functions of wasm/*.c that wasm/ calls (a name the
// TypeScript calls that C does not declare is a type error, since the .d.mts
// lists only declared functions).
//
//   node wasm/seam.mjs        writes the three files and prints the exports
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
export const header = join(root, 'engine', 'include', 'glasskv.h');
// The module's own calls (wasm/exports.c) declare their structs here, and
// the console's splitter and formatter their status codes in cliformat.h.
const exportsHeader = join(here, 'exports.h');
const cliHeader = join(root, 'engine', 'cli', 'cliformat.h');
export const outTs = join(root, 'web', 'src', 'wasm-gen', 'seam.ts');
export const outDts = join(root, 'web', 'src', 'wasm-gen', 'glasskv.d.mts');
export const outC = join(root, 'build', 'wasm', 'seam.c');
const dtsTemplate = join(here, 'glasskv.d.ts');
const DTS_MARKER = '  // @exports';

// Constant sets: a #define or enum constant of glasskv.h belongs to the
// first set whose pattern its name matches, and is named in TypeScript by
// what the pattern's group captured. A GK_ integer constant no set claims
// stops the build, so a new one is never silently left out.
const CONSTANT_SETS = [
  ['Status', /^GK_(OK|ERR|E[A-Z]+)$/],
  ['CliStatus', /^(?:CLI|GKW_CLI)_(\w+)$/],
  ['Limits', /^GK_(HEAP_LIMIT_MAX_32|MAX_NODES|SCRIPT_TIME_BOX_MS)$/],
  ['KeyPart', /^GK_PART_(\w+)$/],
  ['LpEncoding', /^GK_LP_(\w+)$/],
  ['TraceType', /^GK_TR_(\w+)$/],
  ['AckKind', /^GK_ACK_(\w+)$/],
  ['ClientEvent', /^GK_CL_(\w+)$/],
  ['Syscall', /^GK_SYS_(\w+)$/],
  ['AofLimit', /^GK_AOF_(HISTORY_MAX)$/],
  ['AofEvent', /^GK_AOF_(\w+)$/],
  ['BioType', /^GK_BIO_(\w+)$/],
  ['JobEvent', /^GK_JOB_(\w+)$/],
  ['DiskEvent', /^GK_DISK_(\w+)$/],
  ['CrashAt', /^GK_CRASH_AT_(\w+)$/],
  ['CrashEvent', /^GK_CRASH_(\w+)$/],
  ['RewriteEvent', /^GK_RW_(\w+)$/],
  ['LoopPhase', /^GK_LOOP_(\w+)$/],
  ['DictKind', /^GK_DICT_(\w+)$/],
  ['McDist', /^GK_MC_DIST_(\w+)$/],
  ['McFillLimit', /^GK_MC_FILL_(MAX_\w+)$/],
  ['ScanWalkLimit', /^GK_SCAN_WALK_(\w+)$/],
  ['RecoveryOutcome', /^GK_RECOVERY_(KEPT|NEWER|LOST|OLDER)$/],
  ['RecoveryLimit', /^GK_RECOVERY_(ROWS_MAX)$/],
  ['SessionLimit', /^GK_SESSION_(PROGRAMS_MAX)$/],
  ['ErrorCode', /^GK_ERROR_CODE_(BASE|MAX)$/],
  ['EvalLabPart', /^GK_EVLAB_(\w+)$/],
  ['ReplLink', /^GK_LINK_(\w+)$/],
  ['ReplicaState', /^GK_REPLICA_(\w+)$/],
];

// C scalar types as wasm32 lays them out, and how TypeScript reads them.
const SCALARS = {
  uint8_t: { size: 1, ts: 'number', get: 'getUint8', set: 'setUint8' },
  int8_t: { size: 1, ts: 'number', get: 'getInt8', set: 'setInt8' },
  char: { size: 1, ts: 'string' },
  uint16_t: { size: 2, ts: 'number', get: 'getUint16', set: 'setUint16' },
  int16_t: { size: 2, ts: 'number', get: 'getInt16', set: 'setInt16' },
  uint32_t: { size: 4, ts: 'number', get: 'getUint32', set: 'setUint32' },
  int32_t: { size: 4, ts: 'number', get: 'getInt32', set: 'setInt32' },
  gkBool: { size: 4, ts: 'boolean', get: 'getInt32', set: 'setInt32' },
  size_t: { size: 4, ts: 'number', get: 'getUint32', set: 'setUint32' },
  uint64_t: { size: 8, ts: 'number', get: 'u64', set: 'setU64' },
  int64_t: { size: 8, ts: 'number', get: 'i64', set: 'setI64' },
  double: { size: 8, ts: 'number', get: 'getFloat64', set: 'setFloat64' },
};

function fail(message) {
  throw new Error(`wasm/seam.mjs: ${message}`);
}

const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const tsName = (cName) => cName.replace(/^gkw?/, '');

/** A C comment's text as one paragraph. */
function commentText(raw) {
  return raw.replace(/^\/\*+/, '').replace(/\*+\/$/, '').split('\n')
    .map((l) => l.replace(/^\s*\*?\s?/, '').trim()).filter(Boolean).join(' ');
}

// ---- Parsing glasskv.h. ----

/** The fields of a struct body: declarations, each with the comment that
 *  follows it (or, before the first, precedes it). An array's length is a
 *  literal or one of the header's constants. */
function parseFields(body, structName, values) {
  const fields = [];
  let pending = '';
  const re = /\/\*[\s\S]*?\*\/|[^;/]+;/g;
  let m;
  let last = null;
  while ((m = re.exec(body))) {
    const tok = m[0];
    if (tok.startsWith('/*')) {
      const text = commentText(tok);
      if (last) last.forEach((f) => { f.doc = f.doc ? `${f.doc} ${text}` : text; });
      else pending = pending ? `${pending} ${text}` : text;
      continue;
    }
    const decl = tok.replace(/;$/, '').trim();
    const dm = /^(?:const\s+)?([A-Za-z_]\w*)\s+(.+)$/.exec(decl);
    if (!dm) fail(`cannot read "${decl}" in struct ${structName}`);
    const type = dm[1];
    if (!SCALARS[type]) fail(`struct ${structName}: type ${type} cannot cross the boundary`);
    last = dm[2].split(',').map((d) => {
      const am = /^(\w+)(?:\[(\d+|[A-Z_]\w*)\])?$/.exec(d.trim());
      if (!am) fail(`struct ${structName}: cannot read declarator "${d}"`);
      const count = !am[2] ? 1 : /^\d/.test(am[2]) ? Number(am[2]) : values.get(am[2]);
      if (count === undefined) fail(`struct ${structName}: "${d}": ${am[2]} is not a constant of the header`);
      if (type === 'char' && !am[2]) fail(`struct ${structName}: a lone char cannot cross`);
      return { type, name: am[1], count, array: Boolean(am[2]), doc: '' };
    });
    if (pending) {
      last.forEach((f) => { f.doc = pending; });
      pending = '';
    }
    fields.push(...last);
  }
  return fields;
}

/** wasm32 layout: natural alignment, the struct padded to its largest. */
function layout(fields) {
  let off = 0;
  let align = 1;
  for (const f of fields) {
    const size = SCALARS[f.type].size;
    align = Math.max(align, size);
    off = Math.ceil(off / size) * size;
    f.offset = off;
    off += size * f.count;
  }
  return { size: Math.ceil(off / align) * align };
}

function parseStructs(text, values) {
  const structs = [];
  const re = /typedef struct (\w+) \{([\s\S]*?)\n\} (\w+);/g;
  let m;
  while ((m = re.exec(text))) {
    const name = m[3];
    // The comment just above the typedef, if any, documents the struct.
    const before = text.slice(0, m.index).trimEnd();
    const cm = /\/\*((?:(?!\*\/)[\s\S])*)\*\/$/.exec(before);
    const fields = parseFields(m[2], name, values);
    const { size } = layout(fields);
    structs.push({ name, tag: m[1], fields, size, doc: cm ? commentText(cm[0]) : '' });
  }
  return structs;
}

/** Integer constants: #defines of GK_ names with a literal value (or a
 *  product of literals and casts) and enum members. */
function parseConstants(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^#define\s+((?:GKW?|CLI)_\w+)\s+(.*?)\s*(\/\*[\s\S]*)?$/.exec(lines[i]);
    if (!m || /_H$/.test(m[1])) continue;
    let doc = m[3] || '';
    while (doc && !doc.includes('*/') && i + 1 < lines.length) doc += `\n${lines[++i]}`;
    const expr = m[2].replace(/\(\s*(?:size_t|uint\d+_t|int\d+_t)\s*\)/g, '').replace(/(\d)[uUlL]+\b/g, '$1');
    if (!/^[-\d\s*+()]+$/.test(expr)) fail(`#define ${m[1]}: cannot read the value "${m[2]}"`);
    const value = Function(`"use strict"; return (${expr});`)();
    out.push({ name: m[1], value, doc: doc ? commentText(doc) : '' });
  }
  const enumRe = /enum\s*\{([^}]*)\}/g;
  let em;
  while ((em = enumRe.exec(text))) {
    for (const part of em[1].split(',')) {
      const pm = /^\s*(GK_\w+)\s*=\s*(-?\d+)\s*$/.exec(part);
      if (pm) out.push({ name: pm[1], value: Number(pm[2]), doc: '' });
      else if (part.trim()) fail(`enum member "${part.trim()}" needs an explicit value`);
    }
  }
  return out;
}

/** Function declarations ("type name(params);") or, with definitions,
 *  EMSCRIPTEN_KEEPALIVE definitions ("type name(params) {"). */
function parseFunctions(text, definitions) {
  const clean = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const re = definitions
    ? /EMSCRIPTEN_KEEPALIVE\s+([A-Za-z_][\w\s*]*?)\s*\b(gkw?\w+)\s*\(([^)]*)\)\s*\{/g
    : /^([A-Za-z_][\w \t*]*?)\s*\b(gk[A-Z]\w*)\s*\(([^)]*)\)\s*;/gm;
  const out = [];
  let m;
  while ((m = re.exec(clean))) {
    let ret = m[1].trim();
    let name = m[2];
    if (ret.endsWith('*')) ret = 'ptr';
    const params = m[3].trim() === 'void' ? [] : m[3].split(',').map((p) => {
      const pm = /^(.*?)(\w+)\s*$/.exec(p.trim().replace(/\s+/g, ' '));
      if (!pm) fail(`cannot read parameter "${p}" of ${name}`);
      const type = pm[1].trim();
      return { type: type.includes('*') ? 'ptr' : type.replace(/^const /, ''), name: pm[2] };
    });
    out.push({ ret, name, params });
  }
  return out;
}

const WIDE = new Set(['uint64_t', 'int64_t', 'long long', 'unsigned long long']);
const isWide = (t) => WIDE.has(t);

// ---- Generating the TypeScript. ----

function docBlock(doc, indent) {
  if (!doc) return '';
  return `${indent}/** ${doc.replace(/\*\//g, '* /')} */\n`;
}

function fieldTsType(f) {
  const base = SCALARS[f.type].ts;
  if (f.type === 'char') return 'string';
  return f.array ? `[${Array(f.count).fill(base).join(', ')}]` : base;
}

function readExpr(f, at) {
  const s = SCALARS[f.type];
  if (f.type === 'char') return `str(v, ${at}, ${f.count})`;
  if (s.get === 'u64' || s.get === 'i64') return `${s.get}(v, ${at})`;
  const le = s.size > 1 ? ', true' : '';
  const read = `v.${s.get}(${at}${le})`;
  return f.type === 'gkBool' ? `${read} !== 0` : read;
}

function writeStmt(f, at, value) {
  const s = SCALARS[f.type];
  if (f.type === 'char') return `setStr(v, ${at}, ${f.count}, ${value})`;
  if (s.set === 'setU64' || s.set === 'setI64') return `${s.set}(v, ${at}, ${value})`;
  const le = s.size > 1 ? ', true' : '';
  const val = f.type === 'gkBool' ? `${value} ? 1 : 0` : value;
  return `v.${s.set}(${at}, ${val}${le})`;
}

function structTs(st) {
  const n = tsName(st.name);
  const visible = st.fields.filter((f) => f.name !== 'pad');
  const lines = [];
  lines.push(docBlock(`${st.doc ? `${st.doc} ` : ''}(C: ${st.name}, ${st.size} bytes.)`, '') +
    `export interface ${n} {`);
  for (const f of visible) lines.push(`${docBlock(f.doc, '  ')}  ${camel(f.name)}: ${fieldTsType(f)};`);
  lines.push('}');
  // What a writer takes: every field optional, 64-bit ones also as bigint.
  lines.push(`export type ${n}Input = {`);
  for (const f of visible) {
    const t = SCALARS[f.type].size === 8 && f.type !== 'double' && !f.array ? 'number | bigint' : fieldTsType(f);
    lines.push(`  ${camel(f.name)}?: ${t};`);
  }
  lines.push('};');
  lines.push(`export const ${n}Bytes = ${st.size};`);
  lines.push(`export const ${n}Offsets = {`);
  for (const f of visible) lines.push(`  ${camel(f.name)}: ${f.offset},`);
  lines.push('} as const;');
  lines.push(`export function read${n}(v: DataView, p: number): ${n} {`);
  lines.push('  return {');
  for (const f of visible) {
    const step = SCALARS[f.type].size;
    const value = f.array && f.type !== 'char'
      ? `[${Array.from({ length: f.count }, (_, i) => readExpr(f, `p + ${f.offset + i * step}`)).join(', ')}]`
      : readExpr(f, `p + ${f.offset}`);
    lines.push(`    ${camel(f.name)}: ${value},`);
  }
  lines.push('  };');
  lines.push('}');
  // A struct of plain numbers also travels packed, one double per field
  // in declaration order (a Float64Array transfers between threads whole).
  if (visible.every((f) => !f.array && SCALARS[f.type].ts === 'number')) {
    const k = visible.length;
    lines.push(`export const ${n}Doubles = ${k};`);
    lines.push(`export function pack${n}s(rows: readonly ${n}[]): Float64Array {`);
    lines.push(`  const out = new Float64Array(rows.length * ${k});`);
    lines.push('  for (let i = 0; i < rows.length; i++) {');
    lines.push(`    const r = rows[i];`);
    lines.push(`    const o = i * ${k};`);
    visible.forEach((f, i) => lines.push(`    out[o + ${i}] = r.${camel(f.name)};`));
    lines.push('  }');
    lines.push('  return out;');
    lines.push('}');
    lines.push(`export function unpack${n}(data: Float64Array, i: number): ${n} {`);
    lines.push(`  const o = i * ${k};`);
    lines.push(`  return { ${visible.map((f, i) => `${camel(f.name)}: data[o + ${i}]`).join(', ')} };`);
    lines.push('}');
  }
  lines.push(`/** Writes the fields given in s; the others keep their bytes. */`);
  lines.push(`export function write${n}(v: DataView, p: number, s: ${n}Input): void {`);
  for (const f of visible) {
    const k = camel(f.name);
    if (f.array && f.type !== 'char') {
      const step = SCALARS[f.type].size;
      const stmts = Array.from({ length: f.count }, (_, i) => writeStmt(f, `p + ${f.offset + i * step}`, `s.${k}[${i}]`));
      lines.push(`  if (s.${k} !== undefined) { ${stmts.join('; ')}; }`);
    } else {
      lines.push(`  if (s.${k} !== undefined) ${writeStmt(f, `p + ${f.offset}`, `s.${k}`)};`);
    }
  }
  lines.push('}');
  return lines.join('\n');
}

function constantsTs(sets) {
  const out = [];
  for (const [name, members] of sets) {
    out.push(`export const ${name} = {`);
    for (const c of members) out.push(`${docBlock(c.doc, '  ')}  ${c.key}: ${c.value},`);
    out.push('} as const;');
  }
  return out.join('\n');
}

const TS_HELPERS = `const utf8 = new TextDecoder();
const utf8Out = new TextEncoder();
const TWO32 = 4294967296;

/** A uint64 as a number: exact up to 2^53, rounded beyond. */
function u64(v: DataView, p: number): number {
  return v.getUint32(p + 4, true) * TWO32 + v.getUint32(p, true);
}

function i64(v: DataView, p: number): number {
  return v.getInt32(p + 4, true) * TWO32 + v.getUint32(p, true);
}

function setU64(v: DataView, p: number, x: number | bigint): void {
  v.setBigUint64(p, typeof x === 'bigint' ? BigInt.asUintN(64, x) : BigInt(Math.max(0, Math.trunc(x))), true);
}

function setI64(v: DataView, p: number, x: number | bigint): void {
  v.setBigInt64(p, typeof x === 'bigint' ? BigInt.asIntN(64, x) : BigInt(Math.trunc(x)), true);
}

/** A char[n] field up to its first NUL. */
function str(v: DataView, p: number, n: number): string {
  const bytes = new Uint8Array(v.buffer, v.byteOffset + p, n);
  const end = bytes.indexOf(0);
  return utf8.decode(bytes.subarray(0, end < 0 ? n : end));
}

/** A string into a char[n] field: at most n - 1 bytes, then NULs. */
function setStr(v: DataView, p: number, n: number, s: string): void {
  const bytes = new Uint8Array(v.buffer, v.byteOffset + p, n);
  bytes.fill(0);
  bytes.set(utf8Out.encode(s).subarray(0, n - 1));
}

/** n uint64 values at p, as numbers (exact up to 2^53). */
export function readU64s(v: DataView, p: number, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = u64(v, p + i * 8);
  return out;
}

/** A uint64 at p as 16 lowercase hex digits. */
export function readHex64(v: DataView, p: number): string {
  return v.getBigUint64(p, true).toString(16).padStart(16, '0');
}

/** A uint64 or int64 at p, exactly. */
export function readU64(v: DataView, p: number): number {
  return u64(v, p);
}
export function readI64(v: DataView, p: number): number {
  return i64(v, p);
}
`;

// ---- Generating the C. ----

function cType(t) {
  return t === 'ptr' ? 'void *' : t;
}

/** A wrapper taking doubles for 64-bit integers (a uint64 named seed: two
 *  32-bit halves) and returning a 64-bit result as a double. */
function wrapperC(fn) {
  const params = [];
  const args = [];
  for (const p of fn.params) {
    if (isWide(p.type) && p.name === 'seed') {
      params.push(`uint32_t ${p.name}_hi`, `uint32_t ${p.name}_lo`);
      args.push(`gkwSeed(${p.name}_hi, ${p.name}_lo)`);
    } else if (p.type === 'uint64_t' || p.type === 'unsigned long long') {
      params.push(`double ${p.name}`);
      args.push(`gkwU64(${p.name})`);
    } else if (isWide(p.type)) {
      params.push(`double ${p.name}`);
      args.push(`gkwI64(${p.name})`);
    } else {
      params.push(`${cType(p.type)} ${p.name}`);
      args.push(p.name);
    }
  }
  const wide = isWide(fn.ret);
  const ret = wide ? 'double' : cType(fn.ret);
  const call = `${fn.name}(${args.join(', ')})`;
  const body = fn.ret === 'void' ? `${call};` : `return ${wide ? `(double)${call}` : call};`;
  return `EMSCRIPTEN_KEEPALIVE\n${ret} ${wrapperName(fn)}(${params.join(', ') || 'void'}) {\n    ${body}\n}\n`;
}

const wrapperName = (fn) => fn.name.replace(/^gk/, 'gkw');
const needsWrapper = (fn) => isWide(fn.ret) || fn.params.some((p) => isWide(p.type));

function assertsC(structs, constants) {
  const out = [];
  for (const st of structs) {
    out.push(`_Static_assert(sizeof(${st.name}) == ${st.size}, "${st.name}: size");`);
    for (const f of st.fields)
      out.push(`_Static_assert(offsetof(${st.name}, ${f.name}) == ${f.offset}, "${st.name}.${f.name}: offset");`);
  }
  for (const c of constants) out.push(`_Static_assert(${c.name} == ${c.value}, "${c.name}: value");`);
  return out.join('\n');
}

// ---- The .d.mts: the TypeScript side's view of each export. ----

function dtsType(t) {
  if (t === 'void') return 'void';
  return 'number';
}

function dtsParams(params) {
  return params.map((p) => `${camel(p.name)}: ${dtsType(p.type)}`).join(', ');
}

function dtsSignature(fn) {
  if (!needsWrapper(fn)) return `  _${fn.name}(${dtsParams(fn.params)}): ${dtsType(fn.ret)};`;
  const params = [];
  for (const p of fn.params) {
    if (isWide(p.type) && p.name === 'seed') params.push('seedHi: number', 'seedLo: number');
    else params.push(`${camel(p.name)}: number`);
  }
  return `  _${wrapperName(fn)}(${params.join(', ')}): ${dtsType(fn.ret)};`;
}

// ---- Which functions the TypeScript side calls. ----

function tsSources() {
  const files = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'wasm-gen') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(here);
  walk(join(root, 'web', 'src'));
  walk(join(root, 'tests'));
  return files;
}

function calledNames() {
  const used = new Set();
  for (const f of tsSources()) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\b_(gkw?[A-Z]\w*|malloc|free)\s*\(/g)) used.add(m[1]);
  }
  return used;
}

// ---- Putting it together. ----

export function generate() {
  const text = readFileSync(header, 'utf8');
  const exportsText = readFileSync(exportsHeader, 'utf8');
  const constants = [text, exportsText, readFileSync(cliHeader, 'utf8')].flatMap(parseConstants);
  const values = new Map(constants.map((c) => [c.name, c.value]));
  const structs = [...parseStructs(text, values), ...parseStructs(exportsText, values)];
  const sets = CONSTANT_SETS.map(([name]) => [name, []]);
  for (const c of constants) {
    const i = CONSTANT_SETS.findIndex(([, re]) => re.test(c.name));
    if (i < 0) fail(`${c.name} belongs to no constant set: add one to CONSTANT_SETS`);
    c.key = CONSTANT_SETS[i][1].exec(c.name)[1];
    sets[i][1].push(c);
  }
  const api = parseFunctions(text, false);
  const keepalive = [];
  for (const f of readdirSync(here).filter((n) => n.endsWith('.c')).sort())
    keepalive.push(...parseFunctions(readFileSync(join(here, f), 'utf8'), true));

  const used = calledNames();
  const exportsList = ['malloc', 'free'];
  const dts = [];
  const wrappers = [];
  for (const fn of api) {
    const callName = needsWrapper(fn) ? wrapperName(fn) : fn.name;
    if (!used.has(callName)) continue;
    if (keepalive.some((k) => k.name === callName)) fail(`${callName} is both generated and in wasm/*.c`);
    exportsList.push(callName);
    dts.push(dtsSignature(fn));
    if (needsWrapper(fn)) wrappers.push(wrapperC(fn));
  }
  for (const fn of keepalive) {
    if (!used.has(fn.name)) continue;
    exportsList.push(fn.name);
    dts.push(`  _${fn.name}(${dtsParams(fn.params)}): ${dtsType(fn.ret)};`);
  }

  const banner = 'Generated by wasm/seam.mjs from engine/include/glasskv.h: edit the header, not this file.';
  const ts = [
    `// ${banner}`,
    '/* eslint-disable */',
    TS_HELPERS,
    constantsTs(sets.filter(([, m]) => m.length)),
    '',
    ...structs.map(structTs),
    '',
  ].join('\n');

  const template = readFileSync(dtsTemplate, 'utf8');
  if (!template.includes(DTS_MARKER)) fail(`wasm/glasskv.d.ts has no "${DTS_MARKER.trim()}" line`);
  const dtsText = `// ${banner}\n${template.replace(DTS_MARKER, `${DTS_MARKER.replace('@exports', 'The C exports wasm/ calls.')}\n  _malloc(size: number): number;\n  _free(ptr: number): void;\n${dts.join('\n')}`)}`;

  const c = [
    `/* ${banner} */`,
    '#include <stddef.h>',
    '#include <stdint.h>',
    '#include <emscripten.h>',
    '#include "glasskv.h"',
    '#include "cliformat.h"',
    '#include "exports.h"',
    '#include "exportkit.h"',
    '',
    '/* The layout and the constants wasm/seam.mjs gave the TypeScript side. */',
    assertsC(structs, constants),
    '',
    '/* The calls with 64-bit integers, as doubles. */',
    ...wrappers,
    `/* Exported: ${exportsList.join(' ')} */`,
    '',
  ].join('\n');

  return { ts, dts: dtsText, c, exports: exportsList, structs, sets };
}

/** Writes a file only if its text changed, so builds keyed on mtimes stay
 *  quiet. */
function put(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  writeFileSync(path, text);
}

export function writeSeam() {
  const g = generate();
  put(outTs, g.ts);
  put(outDts, g.dts);
  put(outC, g.c);
  return g;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const g = writeSeam();
    console.log(`seam: ${g.structs.length} structs, ${g.sets.reduce((n, [, m]) => n + m.length, 0)} constants, ${g.exports.length} exports`);
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
