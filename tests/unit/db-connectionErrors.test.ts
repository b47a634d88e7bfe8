import { describe, expect, it } from 'vitest';
import {
  connectionFailure,
  retryDelayMs,
  unavailableAnswer,
  withConnectionRetry,
} from '#lib/db/connectionErrors.ts';

const err = (code: string, extra: object = {}) => Object.assign(new Error(code), { code }, extra);

describe('connectionFailure', () => {
  it.each([
    ['53300', 'refused'],
    ['57P03', 'refused'],
    ['CONNECT_TIMEOUT', 'refused'],
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'lost'],
    ['CONNECTION_CLOSED', 'lost'],
    ['57P01', 'lost'],
  ])('%s is %s', (code, kind) => {
    expect(connectionFailure(err(code))).toBe(kind);
  });

  it('is null for query errors, timeouts of statements and non-errors', () => {
    for (const code of ['23505', '42P01', '57014', '22P02', 'ERR_X'])
      expect(connectionFailure(err(code))).toBeNull();
    expect(connectionFailure(new Error('x'))).toBeNull();
    expect(connectionFailure(null)).toBeNull();
    expect(connectionFailure('ECONNREFUSED')).toBeNull();
  });

  it("looks inside Node's AggregateError (one error per address) and causes", () => {
    const agg = Object.assign(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')], ''), {});
    expect(connectionFailure(agg)).toBe('refused');
    expect(connectionFailure(new Error('wrapped', { cause: err('ECONNRESET') }))).toBe('lost');
  });
});

describe('withConnectionRetry', () => {
  it('retries a refused connection once, for any request', async () => {
    let calls = 0;
    const v = await withConnectionRetry(async () => {
      if (++calls === 1) throw err('53300');
      return 'ok';
    }, false);
    expect([v, calls]).toEqual(['ok', 2]);
  });

  it('gives up after the one retry', async () => {
    let calls = 0;
    await expect(
      withConnectionRetry(async () => {
        calls++;
        throw err('ECONNREFUSED');
      }, true),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls).toBe(2);
  });

  it('retries a lost connection only for idempotent requests, and never other errors', async () => {
    for (const [code, idempotent, want] of [
      ['ECONNRESET', false, 1],
      ['ECONNRESET', true, 2],
      ['23505', true, 1],
    ] as const) {
      let calls = 0;
      await expect(
        withConnectionRetry(async () => {
          calls++;
          throw err(code);
        }, idempotent),
      ).rejects.toThrow();
      expect(calls).toBe(want);
    }
  });

  it('waits 100–500 ms with jitter', () => {
    expect(retryDelayMs(() => 0)).toBe(100);
    expect(retryDelayMs(() => 0.999)).toBeLessThan(500);
  });
});

describe('unavailableAnswer', () => {
  it('is a 503 with Retry-After naming the cause, or null', () => {
    expect(unavailableAnswer(err('53300'))).toEqual({
      statusCode: 503,
      retryAfterSeconds: 2,
      message: expect.stringMatching(/no free connection \(too many clients\)/),
    });
    expect(unavailableAnswer(err('57P03'))?.message).toMatch(/starting up/);
    expect(unavailableAnswer(err('ECONNRESET'))?.message).toMatch(/lost/);
    expect(unavailableAnswer(err('23505'))).toBeNull();
  });
});
