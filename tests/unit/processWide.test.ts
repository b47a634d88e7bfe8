import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const LOCAL_RUNTIME_VALUES = Symbol.for('mmgis-serverless.local.processWide');

/**
 * Under `npm start` every function's bundle runs in one process, each with its own copy of `lib`
 * (docs/connections.md, "One process"). `vi.resetModules()` gives a second copy of a module here, as a
 * second bundle has. The local runtime preloads local/processWide.cjs into that process; here it is
 * loaded as the preload loads it.
 */
describe('request contexts are one per process, whatever copy of lib sets or reads them', () => {
  beforeAll(() => {
    createRequire(import.meta.url)('../../local/processWide.cjs');
  });
  afterAll(() => {
    delete (globalThis as Record<symbol, unknown>)[LOCAL_RUNTIME_VALUES];
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a pool made by one copy of lib/db follows a query of a request that another copy's handler runs", async () => {
    const first = await import('#lib/db/statementLog.ts');
    vi.resetModules();
    const second = await import('#lib/db/statementLog.ts');
    expect(second).not.toBe(first);
    // A postgres.js query already written to a connection (its `state` is set once it is sent).
    const query = Object.assign(Promise.resolve(), { state: {}, handler: () => {} });
    const sqlOfFirst = first.followQueries(() => query);
    const log = new second.StatementLog();
    await log.run(async () => {
      sqlOfFirst();
    });
    expect(log.anySent()).toBe(true);
  });

  it("a log line written by one copy of lib/log carries the keys another copy's request appended", async () => {
    const first = await import('#lib/log.ts');
    vi.resetModules();
    const second = await import('#lib/log.ts');
    expect(second).not.toBe(first);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => {
      lines.push(line);
    });
    vi.stubEnv('LOG_LEVEL', 'info');
    await second.withLogContext(async () => {
      second.appendLogKeys({ requestId: 'r-1' });
      first.log('info', 'from the other copy');
    });
    vi.unstubAllEnvs();
    expect(JSON.parse(lines[0])).toMatchObject({ message: 'from the other copy', requestId: 'r-1' });
  });
});

describe('without the local runtime (a Lambda process runs one bundle)', () => {
  it('keeps each value in its own copy of the module, and puts nothing on globalThis', async () => {
    const before = Object.getOwnPropertySymbols(globalThis).length;
    vi.resetModules();
    const first = await import('#lib/processWide.ts');
    vi.resetModules();
    const second = await import('#lib/processWide.ts');
    const key = Symbol.for('processWide.test');
    const a = first.processWide(key, () => ({ copy: 1 }));
    expect(first.processWide(key, () => ({ copy: 3 }))).toBe(a);
    expect(second.processWide(key, () => ({ copy: 2 }))).toEqual({ copy: 2 });
    expect(Object.getOwnPropertySymbols(globalThis).length).toBe(before);
  });
});
