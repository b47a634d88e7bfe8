import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataApiClient } from '#lib/db/dataApi/client.ts';

/**
 * A Data API endpoint in a process of its own, answering every ExecuteStatement with an empty result and
 * counting the calls it ran. A request that arrives on a kept-alive connection idle for more than 200 ms
 * finds that connection closing: the server drops it unanswered, as a server whose keep-alive timer fires
 * as the request arrives does (Node's default keep-alive is 5 s).
 */
const SERVER = `
let calls = 0;
const idleSince = new WeakMap();
const server = require('node:http').createServer((req, res) => {
  const since = idleSince.get(req.socket);
  if (since !== undefined && Date.now() - since > 200) return req.socket.destroy();
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.url.startsWith('/calls')) return res.end(String(calls));
    calls++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ records: [], columnMetadata: [], numberOfRecordsUpdated: 1 }));
  });
  res.on('finish', () => idleSince.set(req.socket, Date.now()));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

let child: ChildProcess;
let endpoint: string;
beforeAll(async () => {
  child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((ok) => child.stdout?.once('data', (d) => ok(String(d).trim())));
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(() => {
  child?.kill();
});

describe('Data API client: a connection idle too long is not reused (lib/db/dataApi/client.ts)', () => {
  it('sends each write on a connection the server still keeps, and the server runs each once', async () => {
    const client = new DataApiClient({
      resourceArn: 'arn:aws:rds:us-east-1:123456789012:cluster:test',
      secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:test',
      database: 'test',
      endpoint,
      idleConnectionMs: 100,
    });
    const write = { text: 'insert into t values ($1)', values: [1] };
    // Back to back: the kept-alive connection is reused.
    await client.execute(write as never);
    await client.execute(write as never);
    // Idle past the server's limit: a new connection.
    for (let i = 0; i < 3; i++) {
      await sleep(400);
      await client.execute(write as never);
    }
    expect(await (await fetch(`${endpoint}/calls`)).text()).toBe('5');
  });
});
