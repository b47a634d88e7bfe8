import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { rememberHandlers, userFunctionModule } = require('../../local/offline/handler-cache.cjs');

describe('offline-handler-cache plugin (docs/connections.md, "One process")', () => {
  it('looks each (service path, handler) up once, and a failed lookup again', async () => {
    const calls: string[] = [];
    let fail = true;
    const mod = {
      load: async (servicePath: string, handler: string) => {
        calls.push(`${servicePath}|${handler}`);
        if (handler === 'flaky.handler' && fail) throw new Error('not built yet');
        return () => handler;
      },
    };
    expect(rememberHandlers(mod)).toBe(true);
    const a1 = await mod.load('/svc', 'a.handler');
    const a2 = await mod.load('/svc', 'a.handler');
    expect(a1).toBe(a2);
    await mod.load('/svc', 'b.handler');
    await mod.load('/other', 'a.handler');
    expect(calls).toEqual(['/svc|a.handler', '/svc|b.handler', '/other|a.handler']);
    await expect(mod.load('/svc', 'flaky.handler')).rejects.toThrow('not built yet');
    fail = false;
    expect((await mod.load('/svc', 'flaky.handler'))()).toBe('flaky.handler');
    await mod.load('/svc', 'flaky.handler');
    expect(calls.filter((c) => c.endsWith('flaky.handler'))).toHaveLength(2);
    // Wrapping twice does not stack a second cache.
    const once = mod.load;
    expect(rememberHandlers(mod)).toBe(true);
    expect(mod.load).toBe(once);
    expect(rememberHandlers(undefined)).toBe(false);
  });

  describe("the installed serverless-offline's in-process runner", () => {
    const dir = mkdtempSync(join(tmpdir(), 'offline-handler-cache-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('finds the remembered handler: one lookup for three invocations', async () => {
      const mod = userFunctionModule(process.cwd());
      expect(typeof mod?.load).toBe('function');
      // Count the lookups that reach serverless-offline's own `load`, under the plugin's cache.
      const lookUp = mod.load;
      let lookups = 0;
      mod.load = (...args: unknown[]) => {
        lookups++;
        return lookUp(...args);
      };
      expect(rememberHandlers(mod)).toBe(true);
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      writeFileSync(
        join(dir, 'fn.js'),
        'let n = 0; export const handler = async (event) => ({ statusCode: 200, body: event.x + ":" + ++n });',
      );
      // The runner imports `load` lazily, as serverless-offline does at the first invocation.
      const offlineMain = require.resolve('serverless-offline');
      const runnerUrl = pathToFileURL(
        join(dirname(offlineMain), 'lambda', 'handler-runner', 'in-process-runner', 'InProcessRunner.js'),
      ).href;
      const { default: InProcessRunner } = await import(/* @vite-ignore */ runnerUrl);
      const runner = new InProcessRunner(
        { codeDir: dir, handler: 'fn.handler', servicePath: dir, timeout: 5000 },
        {},
      );
      const bodies = [];
      for (const x of ['a', 'b', 'c']) bodies.push((await runner.run({ x }, {})).body);
      expect(bodies).toEqual(['a:1', 'b:2', 'c:3']);
      expect(lookups).toBe(1);
    });
  });
});
