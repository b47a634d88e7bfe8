import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPatches, PATCHED_FILES, PATCHES } from '../../local/patches/checks.mjs';

/**
 * Every patch of the local runtime (local/README.md, "Patches") checks that what it patches still looks as
 * it expects, at install (local/postinstall.mjs) and when serverless-offline starts. The first test fails
 * when an upgrade moved the internals of one of them; the others show that each check does fail then.
 */
const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));
const drift = require('../../local/patches/drift.cjs');
const plugin = (name: string) => require(`../../local/offline/${name}.cjs`);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A project folder whose node_modules holds `files` (path → text) and nothing else. */
function fakeProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'patch-drift-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** serverless-offline whose src files are `src` (relative to src/), as its CommonJS entry finds them. */
function fakeOffline(src: Record<string, string>): string {
  const files: Record<string, string> = {
    'node_modules/serverless-offline/package.json': '{"name":"serverless-offline","main":"src/index.cjs"}',
    'node_modules/serverless-offline/src/index.cjs': 'module.exports = {};',
  };
  for (const [p, t] of Object.entries(src)) files[`node_modules/serverless-offline/src/${p}`] = t;
  return fakeProject(files);
}

describe('the local patches fit the installed packages (an upgrade that moves their targets fails here)', () => {
  it('every check passes', async () => {
    expect(await checkPatches(root)).toEqual([]);
  });

  it('lists every serverless-offline plugin of local/offline, and each names itself in its error', () => {
    const names = PATCHES.map((p: { name: string }) => p.name);
    for (const n of [
      'cors',
      'failure-shape',
      'fast-gzip',
      'handler-cache',
      'keep-alive',
      'lambda-timeout',
      'websocket-limits',
      'websocket-on-http-port',
    ])
      expect(names).toContain(`offline/${n}`);
  });
});

describe('each check fails loudly when its target drifted', () => {
  it('patch-package: a patched file without the patch line', async () => {
    const dir = fakeProject(Object.fromEntries(PATCHED_FILES.map(([, f]: string[]) => [f, 'unpatched'])));
    const failures = await checkPatches(dir);
    for (const name of ['patch-package postgres', 'patch-package serverless-offline', 'patch-package vt-pbf'])
      expect(failures.find((f: { name: string }) => f.name === name)?.message).toMatch(/no longer holds/);
  });

  it('every serverless-offline plugin, on a serverless-offline and hapi that lack what it patches', async () => {
    const dir = fakeOffline({});
    for (const n of [
      'cors',
      'failure-shape',
      'fast-gzip',
      'handler-cache',
      'keep-alive',
      'lambda-timeout',
      'websocket-limits',
      'websocket-on-http-port',
    ]) {
      let error: unknown;
      try {
        await plugin(n).target(dir);
      } catch (e) {
        error = e;
      }
      expect(error, n).toBeInstanceOf(drift.PatchDriftError);
      expect((error as Error).message).toContain(`local patch "offline/${n}"`);
    }
  });

  it('handler-cache: a runner that no longer imports load() from UserFunction.js', () => {
    const dir = fakeOffline({
      'lambda/handler-runner/in-process-runner/aws-lambda-ric/UserFunction.js': 'exports.load = () => {};',
      'lambda/handler-runner/in-process-runner/InProcessRunner.js':
        'import { loadHandler } from "./elsewhere.js"',
    });
    expect(() => plugin('handler-cache').target(dir)).toThrow(drift.PatchDriftError);
    expect(() => plugin('handler-cache').target(dir)).toThrow(/InProcessRunner\.js no longer holds/);
  });

  it('lambda-timeout: a LambdaFunction that no longer drops its timer under noTimeout', async () => {
    const dir = fakeOffline({
      'lambda/handler-runner/HandlerRunner.js': 'export default class HandlerRunner { run() {} }',
      'errors/index.js': 'export class LambdaTimeoutError extends Error {}',
      'lambda/LambdaFunction.js': 'export default class LambdaFunction {}',
    });
    await expect(plugin('lambda-timeout').target(dir)).rejects.toThrow(/LambdaFunction\.js no longer holds/);
  });

  it('websocket-limits: a ws whose receiver no longer has the fields it reads', () => {
    const dir = fakeOffline({});
    const ws = `
      class Receiver { haveLength() {} createError() {} }
      class WebSocketServer { completeUpgrade() {} }
      module.exports = { Receiver, WebSocketServer };`;
    mkdirSync(join(dir, 'node_modules/ws'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/ws/package.json'), '{"name":"ws","main":"index.js"}');
    writeFileSync(join(dir, 'node_modules/ws/index.js'), ws);
    expect(() => plugin('websocket-limits').target(dir)).toThrow(/a ws Receiver has no _isServer/);
  });

  it('websocket-on-http-port: the two servers not found when serverless-offline listens', () => {
    const { expectBoth } = plugin('websocket-on-http-port');
    expect(() => expectBoth(undefined, undefined, { httpPort: 1, websocketPort: 2 })).toThrow(
      /HTTP server on port 1 and WebSocket server on port 2 were not both found/,
    );
  });

  it('a plugin that fails its check stops `serverless offline`, not another command', async () => {
    const dir = fakeOffline({});
    const FastGzip = plugin('fast-gzip');
    const p = new FastGzip({ config: { servicePath: dir } });
    expect(() => p.hooks['before:offline:start:init']()).toThrow(drift.PatchDriftError);
  });
});
