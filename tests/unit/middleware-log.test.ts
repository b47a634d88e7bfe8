import middy from '@middy/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { badRequest } from '#lib/errors.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import { requestLog } from '#lib/http/middleware/requestLog.ts';
import { log } from '#lib/log.ts';
import { fakeContext, fakeEvent } from './fakeRequest.ts';

describe('requestLog', () => {
  let lines: Record<string, unknown>[];
  const level = process.env.LOG_LEVEL;
  beforeEach(() => {
    process.env.LOG_LEVEL = 'info';
    lines = [];
    const capture = (line: string) => void lines.push(JSON.parse(line));
    vi.spyOn(console, 'log').mockImplementation(capture);
    vi.spyOn(console, 'error').mockImplementation(capture);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.env.LOG_LEVEL = level;
  });

  it('tags every line logged during the request with its id, then logs the request', async () => {
    const handler = middy(async () => {
      log('info', 'inside');
      throw badRequest('No.');
    }).use([requestLog(), errorResponse(), proxyResult()]);
    await handler(fakeEvent({ httpMethod: 'POST', path: '/api/x' }), fakeContext());
    log('info', 'after');
    expect(lines.map(({ time: _t, ms: _ms, ...rest }) => rest)).toEqual([
      { level: 'info', message: 'inside', requestId: 'req-1' },
      { level: 'info', message: 'request', requestId: 'req-1', method: 'POST', path: '/api/x', status: 400 },
      { level: 'info', message: 'after' },
    ]);
    expect(typeof lines[1].ms).toBe('number');
  });

  it('logs an unexpected error at error level with the request id', async () => {
    const handler = middy(async () => {
      throw new Error('boom');
    }).use([requestLog(), errorResponse(), proxyResult()]);
    await handler(fakeEvent(), fakeContext());
    expect(lines.map((l) => [l.level, l.message, l.requestId, l.status])).toEqual([
      ['error', 'unhandled error', 'req-1', undefined],
      ['error', 'request', 'req-1', 500],
    ]);
  });
});
