// The console subscribed to channels (wasm/consolerun.ts on the real
// .wasm): SUBSCRIBE prints what redis-cli --no-raw prints for it, every
// confirmation under its own command; messages that arrive between inputs
// are printed on their own; RESP3 pushes are never taken for a command's
// reply, so no reply is shifted onto the next command.
import { describe, expect, it } from 'vitest';
import { ConsoleRunner } from '../../wasm/consolerun';
import { oneServer, rawExchange } from './helpers';

const READING = 'Reading messages... (press Ctrl-C to quit)';

async function consoleAndPublisher() {
  const { gk, world, node, conn } = await oneServer();
  return { world, console: new ConsoleRunner(gk, world, node), publisher: conn };
}

describe('the console with subscriptions', () => {
  it('prints SUBSCRIBE as redis-cli does, one confirmation per channel, and the next line its own reply', async () => {
    const { console } = await consoleAndPublisher();
    const out = console.run('SUBSCRIBE a b\nPING\nGET k');
    expect(out.map((e) => [e.input, e.output, e.status])).toEqual([
      ['SUBSCRIBE a b', `${READING}\n1) "subscribe"\n2) "a"\n3) (integer) 1\n`
        + '1) "subscribe"\n2) "b"\n3) (integer) 2', 'ok'],
      ['PING', '1) "pong"\n2) ""', 'ok'],
      ['GET k', "(error) ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
        + 'PING / QUIT / RESET are allowed in this context', 'error'],
    ]);
  });

  it('shows messages published between inputs on their own, then answers the next input', async () => {
    const { world, console, publisher } = await consoleAndPublisher();
    console.run('PSUBSCRIBE news.*');
    expect(rawExchange(world, publisher, 'PUBLISH news.1 hi\r\nPUBLISH other x\r\n')).toBe(':1\r\n:0\r\n');
    const out = console.run('UNSUBSCRIBE\nPUNSUBSCRIBE\nSET k v');
    expect(out.map((e) => [e.prompt, e.input, e.output])).toEqual([
      ['', '', '1) "pmessage"\n2) "news.*"\n3) "news.1"\n4) "hi"'],
      ['127.0.0.1:6379>', 'UNSUBSCRIBE', '1) "unsubscribe"\n2) (nil)\n3) (integer) 1'],
      ['127.0.0.1:6379>', 'PUNSUBSCRIBE', '1) "punsubscribe"\n2) "news.*"\n3) (integer) 0'],
      ['127.0.0.1:6379>', 'SET k v', 'OK'],
    ]);
    expect(console.run('GET k').map((e) => e.output)).toEqual(['"v"']);
  });

  it('takes every channel an UNSUBSCRIBE without arguments leaves, and nothing of the next command', async () => {
    const { console } = await consoleAndPublisher();
    console.run('SUBSCRIBE a b c');
    const out = console.run('UNSUBSCRIBE\nUNSUBSCRIBE\nPING');
    expect(out.map((e) => e.output.split('\n').filter((l) => l.startsWith('3)')).length)).toEqual([3, 1, 0]);
    expect(out[1].output).toBe('1) "unsubscribe"\n2) (nil)\n3) (integer) 0');
    expect(out[2].output).toBe('PONG');
  });

  it('in RESP3 prints pushes where they arrive and keeps each reply with its command', async () => {
    const { console } = await consoleAndPublisher();
    console.run('HELLO 3');
    const out = console.run('SUBSCRIBE __keyspace@0__:k\nCONFIG SET notify-keyspace-events K$\nSET k v\nGET k');
    expect(out.map((e) => [e.input, e.output])).toEqual([
      ['SUBSCRIBE __keyspace@0__:k', `${READING}\n1) "subscribe"\n2) "__keyspace@0__:k"\n3) (integer) 1`],
      ['CONFIG SET notify-keyspace-events K$', 'OK'],
      ['SET k v', '1) "message"\n2) "__keyspace@0__:k"\n3) "set"\nOK'],
      ['GET k', '"v"'],
    ]);
  });
});
