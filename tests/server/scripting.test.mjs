// A script that runs too long, on real sockets, side by side: `glasskv
// server` and Debian's redis-server 7.0 each run an endless EVAL with
// busy-reply-threshold at 200 ms while a second client sends commands.
// Both must answer alike: nothing until the threshold, then -BUSY for all
// but the few commands a busy script lets through, SCRIPT KILL ending a
// script that wrote nothing, -UNKILLABLE for one that wrote, and SHUTDOWN
// NOSAVE ending the process. The replies are compared as text, with the
// scripts' sha1 (the same on both) left in.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { describe, it } from 'node:test';
import { sleep, startServer } from './servers.mjs';

/** A connection that keeps every byte it receives, with a way to wait for
 *  the next complete line-based reply (the replies here are one line). */
async function open(port) {
  const sock = createConnection({ host: '127.0.0.1', port });
  const conn = { sock, text: '', closed: false };
  sock.on('data', (d) => { conn.text += d.toString('latin1'); });
  sock.on('close', () => { conn.closed = true; });
  sock.on('error', () => {});
  await new Promise((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  return conn;
}

/** Sends one inline command and resolves with its one-line reply, or
 *  with '(closed)' if the connection closes first. */
async function ask(conn, line, timeoutMs = 10000) {
  const start = conn.text.length;
  conn.sock.write(`${line}\r\n`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const eol = conn.text.indexOf('\r\n', start);
    if (eol >= 0) return conn.text.slice(start, eol);
    if (conn.closed) return '(closed)';
    if (Date.now() > deadline) return '(no reply)';
    await sleep(5);
  }
}

const LOOP = 'EVAL "local i = 0 while true do i = i + 1 end" 0';
const WRITE_THEN_LOOP = 'EVAL "redis.call(\'set\',\'k\',\'v\') local i = 0 while true do i = i + 1 end" 0';

/** The transcript of the busy-script scenario on one server kind. */
async function busyTranscript(kind) {
  const server = await startServer(kind);
  const out = [];
  try {
    const a = await open(server.port);
    const b = await open(server.port);
    out.push(await ask(b, 'CONFIG SET busy-reply-threshold 200'));
    // A script that wrote nothing: SCRIPT KILL stops it.
    const started = Date.now();
    const pending = ask(a, LOOP);
    await sleep(50);
    out.push(`early PING: ${await ask(b, 'PING')}`);
    out.push(`waited past the threshold: ${Date.now() - started >= 180}`);
    for (const cmd of ['PING', 'GET k', 'SET k v', 'SHUTDOWN', 'FUNCTION STATS',
      'SCRIPT KILL'])
      out.push(`${cmd}: ${await ask(b, cmd)}`);
    out.push(`the script's caller: ${await pending}`);
    out.push(`after: ${await ask(b, 'PING')}`);
    out.push(`SCRIPT KILL again: ${await ask(b, 'SCRIPT KILL')}`);
    // A script that wrote: unkillable, so SHUTDOWN NOSAVE it is.
    const writer = ask(a, WRITE_THEN_LOOP);
    await sleep(300);
    out.push(`SCRIPT KILL of a writer: ${await ask(b, 'SCRIPT KILL')}`);
    out.push(`FUNCTION KILL: ${await ask(b, 'FUNCTION KILL')}`);
    out.push(`SHUTDOWN NOSAVE: ${await ask(b, 'SHUTDOWN NOSAVE')}`);
    out.push(`the writer's caller: ${await writer}`);
    out.push(`exit: ${await server.exited}`);
  } finally {
    await server.stop('SIGKILL');
  }
  return out;
}

/** Resolves with the next n lines conn receives after byte start, or
 *  fewer if the time runs out. */
async function lines(conn, start, n, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = conn.text.slice(start).split('\r\n').slice(0, -1);
    if (got.length >= n || conn.closed || Date.now() > deadline) return got.slice(0, n);
    await sleep(5);
  }
}

// A script that catches every error it can (pcall around redis.call),
// sent in one write with a PING behind it.
const PCALL_LOOP = "local f = function() while 1 do redis.call('ping') end end "
  + 'while 1 do pcall(f) end';

/** SCRIPT KILL of a script that pcalls, whose caller pipelined a PING:
 *  the kill cannot be caught, and the PING is answered after it. */
async function pipelinedKillTranscript(kind) {
  const server = await startServer(kind);
  const out = [];
  try {
    const a = await open(server.port);
    const b = await open(server.port);
    out.push(await ask(b, 'CONFIG SET busy-reply-threshold 100'));
    a.sock.write(`*3\r\n$4\r\nEVAL\r\n$${PCALL_LOOP.length}\r\n${PCALL_LOOP}\r\n$1\r\n0\r\n`
      + '*1\r\n$4\r\nPING\r\n');
    await sleep(300);
    out.push(`PING: ${await ask(b, 'PING')}`);
    out.push(`SCRIPT KILL: ${await ask(b, 'SCRIPT KILL')}`);
    out.push(`the caller: ${(await lines(a, 0, 2)).join(' | ')}`);
    out.push(`after: ${await ask(b, 'PING')}`);
  } finally {
    await server.stop('SIGKILL');
  }
  return out;
}

describe('a busy script on a real socket, as redis-server 7.0', () => {
  it('is killed through pcall, and its caller\'s pipelined command is served after it', async () => {
    const [mine, theirs] = await Promise.all([pipelinedKillTranscript('glasskv'),
      pipelinedKillTranscript('redis')]);
    assert.deepEqual(mine, theirs);
    assert.ok(theirs.some((l) => /^the caller: -ERR Script killed by user with SCRIPT KILL.* \| \+PONG$/.test(l)),
      theirs.join('\n'));
  });

  it('answers -BUSY after busy-reply-threshold, and SCRIPT KILL and SHUTDOWN NOSAVE end it', async () => {
    const [mine, theirs] = await Promise.all([busyTranscript('glasskv'), busyTranscript('redis')]);
    assert.deepEqual(mine, theirs);
    // What the transcript is, so that an equal but empty one cannot pass.
    assert.ok(theirs.includes('PING: -BUSY Redis is busy running a script. You can only call '
      + 'SCRIPT KILL or SHUTDOWN NOSAVE.'), theirs.join('\n'));
    assert.ok(theirs.includes('SCRIPT KILL: +OK'), theirs.join('\n'));
  });
});
