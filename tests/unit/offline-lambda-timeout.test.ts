import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const OfflineLambdaTimeout = require('../../local/offline/lambda-timeout.cjs');
const { clearedTimeouts, offlineRunner, timeoutsByName } = OfflineLambdaTimeout;

setFlagsFromString('--expose-gc');
const gc: () => void = runInNewContext('gc');

class TimeoutError extends Error {}

/** The deployed name of the function the installed runner runs below. */
const FN = 'offline-lambda-timeout-fn';

/** Timers this process holds. */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('offline-lambda-timeout plugin (docs/connections.md, "One process")', () => {
  it("answers as the handler does, fails a run that outlasts its timeout, and clears each run's timer", async () => {
    class Runner {
      async run(event: { ms: number; x: string }) {
        await new Promise((r) => setTimeout(r, event.ms));
        return { statusCode: 200, body: event.x };
      }
    }
    expect(clearedTimeouts(Runner, TimeoutError, () => 200)).toBe(true);
    const runner = new Runner();
    const before = timers();
    expect(await runner.run({ ms: 0, x: 'a' })).toEqual({ statusCode: 200, body: 'a' });
    expect(timers()).toBe(before);
    const slow = runner.run({ ms: 1_000, x: 'b' });
    await expect(slow).rejects.toBeInstanceOf(TimeoutError);
    await expect(slow).rejects.toThrow('[504] - Lambda timeout.');
    // Wrapping twice does not stack a second timer.
    const once = Runner.prototype.run;
    expect(clearedTimeouts(Runner, TimeoutError, () => 200)).toBe(true);
    expect(Runner.prototype.run).toBe(once);
    expect(clearedTimeouts(undefined, TimeoutError, () => 1)).toBe(false);
  });

  it("takes each function's timeout, else the provider's, else serverless-offline's 6 s", () => {
    const fns: Record<string, { name: string; timeout?: number }> = {
      quick: { name: 'mmgis-dev-quick' },
      job: { name: 'mmgis-dev-job', timeout: 900 },
    };
    const service = (provider: { timeout?: number }) => ({
      provider,
      getAllFunctions: () => Object.keys(fns),
      getFunction: (k: string) => fns[k],
    });
    const ms = timeoutsByName(service({ timeout: 29 }));
    expect(ms({ functionName: 'mmgis-dev-quick' })).toBe(29_000);
    expect(ms({ functionName: 'mmgis-dev-job' })).toBe(900_000);
    expect(ms({ functionName: 'unknown' })).toBe(29_000);
    expect(timeoutsByName(service({}))({ functionName: 'mmgis-dev-quick' })).toBe(6_000);
  });

  it('sets noTimeout once its own timeout is in place, and does nothing under --noTimeout', async () => {
    // The function of the next test, as serverless would describe it: whichever test wraps the runner
    // first, the run times out after 300 ms.
    const serverless = () => ({
      config: { servicePath: process.cwd() },
      service: {
        provider: { timeout: 29 },
        custom: {} as Record<string, any>,
        getAllFunctions: () => ['fn'],
        getFunction: () => ({ name: FN, timeout: 0.3 }),
      },
    });
    const given = serverless();
    await new OfflineLambdaTimeout(given, { noTimeout: true }).hooks['before:offline:start:init']();
    expect(given.service.custom['serverless-offline']).toBeUndefined();
    const sls = serverless();
    await new OfflineLambdaTimeout(sls, {}).hooks['before:offline:start:init']();
    expect(sls.service.custom['serverless-offline']).toEqual({ noTimeout: true });
  });

  describe("the installed serverless-offline's Lambda functions", () => {
    const dir = mkdtempSync(join(tmpdir(), 'offline-lambda-timeout-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(
      join(dir, 'fn.js'),
      'export const handler = async (e) => { await new Promise((r) => setTimeout(r, e.ms)); return { statusCode: 200, body: "x".repeat(e.n) }; };',
    );

    /** serverless-offline's `LambdaFunction` of fn.js (300 ms timeout unless given), in process, as it runs every function. */
    async function lambdaFunction(noTimeout: boolean, timeoutS = 0.3) {
      const src = dirname(require.resolve('serverless-offline'));
      const url = pathToFileURL(join(src, 'lambda', 'LambdaFunction.js')).href;
      const { default: LambdaFunction } = await import(/* @vite-ignore */ url);
      const serverless = {
        config: { servicePath: dir },
        service: { service: 'offline-lambda-timeout', provider: { runtime: 'nodejs20.x', timeout: 29 } },
      };
      const definition = { handler: 'fn.handler', name: FN, timeout: timeoutS };
      return new LambdaFunction('fn', definition, serverless, { useInProcess: true, noTimeout });
    }

    /** Whether the answer of one run is still in memory after it was returned and dropped. */
    async function answerHeld(fn: { setEvent(e: unknown): void; runHandler(): Promise<unknown> }) {
      fn.setEvent({ ms: 0, n: 1_000_000 });
      let answer: { body?: string } | undefined = (await fn.runHandler()) as { body?: string };
      expect(answer?.body).toHaveLength(1_000_000);
      const held = new WeakRef(answer as object);
      answer = undefined;
      // Up to about a second for the answer to be let go: far inside the 20 s timers below, so only a
      // timer that still holds the answer keeps it, however loaded the machine.
      for (let i = 0; i < 50 && held.deref(); i++) {
        await new Promise((r) => setTimeout(r, 20));
        gc();
      }
      return held.deref() !== undefined;
    }

    it('holds every answer until the timeout with its own timer, and lets go of it with this one', async () => {
      // serverless-offline's own timer: the answer stays until the timeout fires. With a timeout of 20 s the
      // timer cannot fire while the answer is looked for, however slow the machine (at 300 ms it did, on a
      // loaded one, and the answer was let go before it was looked for).
      expect(await answerHeld(await lambdaFunction(false, 20))).toBe(true);
      const found = await offlineRunner(process.cwd());
      expect(typeof found?.HandlerRunner).toBe('function');
      expect(typeof found?.LambdaTimeoutError).toBe('function');
      expect(clearedTimeouts(found.HandlerRunner, found.LambdaTimeoutError, () => 300)).toBe(true);
      // As the plugin runs it: noTimeout, and the cleared timer.
      const fn = await lambdaFunction(true, 20);
      expect(await answerHeld(fn)).toBe(false);
      // Past the timeout, serverless-offline's own error, which it answers 504.
      fn.setEvent({ ms: 2_000, n: 1 });
      await expect(fn.runHandler()).rejects.toBeInstanceOf(found.LambdaTimeoutError);
      await expect(fn.runHandler()).rejects.toThrow('[504] - Lambda timeout.');
    });
  });
});
