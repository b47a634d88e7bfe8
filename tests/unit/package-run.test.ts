import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PackagedFunction,
  packagedFunctions,
  type RunResult,
  runPackaged,
  runRoot,
} from '../fixtures/lambdaRun.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';

/**
 * Every packaged function runs as Lambda runs it (tests/fixtures/lambdaRun.ts): its zip alone, a fresh
 * Node process, no project node_modules, its template's environment (NODE_OPTIONS included), and no
 * database reachable. Endpoints answer (a validation failure, a 401, a 404, a 200 that needs no
 * database, or the clean 503 of an unreachable database), never a 500 or a crash; WebSocket handlers and
 * jobs start and fail, if at all, only on the database connection. Import times: bench/lambdaImports.ts.
 */

const out = mkdtempSync(join(tmpdir(), 'sls-run-'));
let root: string;
let functions: PackagedFunction[];
const results = new Map<string, RunResult>();

beforeAll(async () => {
  root = runRoot();
  const template = JSON.parse(await packageService(out, [], DEFAULT_PACKAGE_ENV));
  functions = packagedFunctions(template, out);
  const queue = [...functions];
  // Two at a time: the machine's cores.
  await Promise.all(
    [0, 1].map(async () => {
      for (let fn = queue.shift(); fn; fn = queue.shift()) {
        const sourceMaps = fn.environment.NODE_OPTIONS?.includes('--enable-source-maps') ?? false;
        results.set(fn.id, await runPackaged(fn, root, { sourceMaps }));
      }
    }),
  );
}, 900_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('each packaged function, alone, as Lambda runs it', () => {
  it('runs every function of the package', () => {
    expect(functions.length).toBeGreaterThan(100);
    expect(results.size).toBe(functions.length);
  });

  it('imports every handler from its zip alone', () => {
    const failed = [...results.values()].filter((r) => r.importMs < 0).map((r) => `${r.id}: ${r.error}`);
    expect(failed).toEqual([]);
    // Not a timing test (a shared machine under load took 5.4 s for the largest bundle; figures:
    // bench/lambdaImports.ts): only an import that waits on something (a network call at load) fails it.
    for (const r of results.values()) expect(r.importMs, r.id).toBeLessThan(30_000);
  });

  it('answers every endpoint without a database: a 2xx–4xx or the clean 503, in the JSON shape', () => {
    const http = functions.filter((f) => f.kind === 'http');
    expect(http.length).toBeGreaterThan(90);
    for (const fn of http) {
      const r = results.get(fn.id) as RunResult;
      expect(r.statusCode, `${fn.id}: ${r.outcome} ${r.error ?? ''}`).toBeTypeOf('number');
      const status = r.statusCode as number;
      expect(status >= 200 && (status < 500 || status === 501 || status === 503), `${fn.id} ${status}`).toBe(
        true,
      );
      if (fn.id === 'WebServeLambdaFunction') {
        expect(r.body).toMatch(/^<!doctype html>/);
        continue;
      }
      if (status >= 400) expect(JSON.parse(r.body as string).status, fn.id).toBe('failure');
    }
    // The healthcheck says what is wrong: the database.
    expect(results.get('UtilsHealthcheckLambdaFunction')?.statusCode).toBe(503);
  });

  it('starts every job and WebSocket handler; none fails but on the database connection', () => {
    const others = functions.filter((f) => f.kind !== 'http');
    expect(others.length).toBeGreaterThan(5);
    for (const fn of others) {
      const r = results.get(fn.id) as RunResult;
      expect(['ok', 'threw ECONNREFUSED'], `${fn.id}: ${r.outcome} ${r.error ?? ''}`).toContain(r.outcome);
    }
  });
});
