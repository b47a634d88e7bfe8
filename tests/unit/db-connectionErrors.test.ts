import { describe, expect, it } from 'vitest';
import {
  connectionFailure,
  retryDelayMs,
  unavailableAnswer,
  withConnectionRetry,
} from '#lib/db/connectionErrors.ts';
import { isRead, retryWait } from '#lib/db/dataApi/retries.ts';
import { JOB_RESUME_WAIT_MS, resumeWaitMs, withResumeWait } from '#lib/db/resumeWait.ts';
import { statementSending } from '#lib/db/statementLog.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';

const err = (code: string, extra: object = {}) => Object.assign(new Error(code), { code }, extra);

describe('connectionFailure', () => {
  it.each([
    ['53300', 'refused'],
    ['57P03', 'refused'],
    ['CONNECT_TIMEOUT', 'refused'],
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'lost'],
    ['ETIMEDOUT', 'lost'],
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
  it('runs a handler again once when none of its statements was sent, whatever the failure', async () => {
    for (const code of ['53300', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'CONNECTION_CLOSED']) {
      let calls = 0;
      const v = await withConnectionRetry(async () => {
        if (++calls === 1) throw err(code);
        return 'ok';
      });
      expect([code, v, calls]).toEqual([code, 'ok', 2]);
    }
  });

  it('gives up after the one retry', async () => {
    let calls = 0;
    await expect(
      withConnectionRetry(async () => {
        calls++;
        throw err('ECONNREFUSED');
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls).toBe(2);
  });

  it('never runs a handler again once one of its statements was sent (an ETIMEDOUT after a write)', async () => {
    for (const code of ['ETIMEDOUT', 'ECONNRESET', '57P01', '53300']) {
      let calls = 0;
      await expect(
        withConnectionRetry(async () => {
          calls++;
          statementSending();
          throw err(code);
        }),
      ).rejects.toMatchObject({ code });
      expect([code, calls]).toEqual([code, 1]);
    }
  });

  it('counts a call proved not to have run as not sent; a read-only function may run again anyway', async () => {
    let calls = 0;
    const v = await withConnectionRetry(async () => {
      const sent = statementSending();
      if (++calls === 1) {
        sent.notRun();
        throw err('ECONNREFUSED');
      }
      return 'ok';
    });
    expect([v, calls]).toEqual(['ok', 2]);
    calls = 0;
    const read = await withConnectionRetry(async () => {
      statementSending();
      if (++calls === 1) throw err('ECONNRESET');
      return 'read';
    }, true);
    expect([read, calls]).toEqual(['read', 2]);
  });

  it('never retries other errors', async () => {
    let calls = 0;
    await expect(
      withConnectionRetry(async () => {
        calls++;
        throw err('23505');
      }),
    ).rejects.toThrow();
    expect(calls).toBe(1);
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

describe('Data API retries', () => {
  // Errors as @aws-sdk/client-rds-data gives them (seen against a local server).
  const sdk = (name: string, extra: object = {}) => Object.assign(new Error(name), { name }, extra);
  const throttled = sdk('ThrottlingException', { $metadata: { httpStatusCode: 429 } });
  const refused = sdk('Error', { code: 'ECONNREFUSED' });
  const reset = sdk('TimeoutError', { code: 'ECONNRESET' });
  const gateway = sdk('SyntaxError', { $metadata: { httpStatusCode: 502 } });
  const failed = sdk('InternalServerErrorException', { $metadata: { httpStatusCode: 500 } });
  const database = sdk('DatabaseErrorException', { $metadata: { httpStatusCode: 400 } });
  const half = () => 0.5;

  it('repeats any call that cannot have run: throttled, or the connection refused', () => {
    for (const e of [throttled, refused]) {
      expect(retryWait(e, 1, false, half)).toBe(100);
      expect(retryWait(e, 2, false, half)).toBe(200);
      expect(retryWait(e, 3, false, half)).toBeNull();
    }
  });

  it('repeats a call whose answer was lost only when running it twice is harmless', () => {
    for (const e of [reset, gateway, failed]) {
      expect(retryWait(e, 1, false, half)).toBeNull();
      expect(retryWait(e, 1, true, half)).toBe(100);
    }
    expect(retryWait(database, 1, true, half)).toBeNull();
  });

  it('waits for Aurora resuming from auto-pause as long as the budget allows: 20 s by default, 120 s in a job', () => {
    const resuming = sdk('DatabaseResumingException', { $metadata: { httpStatusCode: 400 } });
    expect(retryWait(resuming, 1, false, half)).toBe(1000);
    expect(retryWait(resuming, 4, false, half)).toBe(4000);
    expect(retryWait(resuming, 9, false, half)).toBe(5000);
    // How long the calls go on, one wait after another, for a budget.
    const total = (budget: number) => {
      let waited = 0;
      for (let attempt = 1; ; attempt++) {
        const wait = retryWait(resuming, attempt, false, half, waited, budget);
        if (wait === null) return waited;
        waited += wait;
      }
    };
    // The old driver gave a resume 1 + 2 + 3 + 4 = 10 s; a resume commonly takes about 15 s.
    expect(total(20_000)).toBe(20_000);
    expect(total(120_000)).toBe(120_000);
    expect(total(resumeWaitMs())).toBe(20_000);
    expect(total(JOB_RESUME_WAIT_MS)).toBe(120_000);
  });

  it('gives a job or the migration the longer wait for a resume, an API request the default', async () => {
    expect(resumeWaitMs()).toBe(20_000);
    expect(await withResumeWait(JOB_RESUME_WAIT_MS, async () => resumeWaitMs())).toBe(120_000);
    const job = asyncHandler('test', async () => resumeWaitMs());
    expect(await job(undefined)).toBe(120_000);
  });

  it('calls a statement read-only only when nothing in its text may write, lock or step a sequence', () => {
    for (const t of [
      'select 1',
      ' (select a from t) union (select b from u)',
      'with x as (select 1) select * from x',
    ])
      expect(isRead(t)).toBe(true);
    for (const t of [
      'insert into t values (1)',
      'with x as (delete from t returning *) select * from x',
      "select nextval('s')",
      'select pg_advisory_xact_lock(1)',
      'select * into t2 from t',
      'update t set a = 1',
      'create table t (a int)',
    ])
      expect(isRead(t)).toBe(false);
  });
});
