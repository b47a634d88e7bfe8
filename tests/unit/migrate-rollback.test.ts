import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/jobs/migrate.ts';

/**
 * The `MigrateOnDeploy` custom resource (serverless/plugins/deployment.cjs) during a rollback:
 * CloudFormation sends the previous properties again, and the answer must be SUCCESS without touching
 * the database (the unit project's DATABASE_URL is a port nothing listens on), or the rollback itself
 * fails (UPDATE_ROLLBACK_FAILED).
 */

const answers: any[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    answers.push(JSON.parse(body));
    res.end();
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => server.close());

const event = (deployment: string, previous: string) => ({
  RequestType: 'Update' as const,
  ResponseURL: url,
  StackId: 'stack',
  RequestId: 'request',
  LogicalResourceId: 'MigrateOnDeploy',
  PhysicalResourceId: 'migrations',
  ResourceProperties: { Deployment: deployment },
  OldResourceProperties: { Deployment: previous },
});

describe('MigrateOnDeploy', () => {
  it('answers a rollback SUCCESS without the database', async () => {
    answers.length = 0;
    await handler(event('2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z'));
    expect(answers).toEqual([expect.objectContaining({ Status: 'SUCCESS', RequestId: 'request' })]);
  });

  it('runs the migrations on a forward update (here: FAILED, no database)', async () => {
    answers.length = 0;
    await handler(event('2026-11-02T00:00:00.000Z', '2026-11-01T00:00:00.000Z'));
    expect(answers).toEqual([expect.objectContaining({ Status: 'FAILED' })]);
  }, 60_000);
});
