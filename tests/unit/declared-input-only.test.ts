import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Handlers read their input only as declared (docs/input.md): `endpoint()` gives them `query`, `path` and
 * `body` after the guards and the validator. Nothing outside the middleware that builds those parts reads
 * the raw event fields by hand.
 */
const RAW_FIELDS =
  /\b(queryStringParameters|multiValueQueryStringParameters|pathParameters)\b|\bevent\??\.body\b/;

/** Files allowed to read the raw fields, each with its reason. */
const ALLOWED: Record<string, string> = {
  // The middleware that builds the declared parts (body parser, validator) and the form parser under it.
  'lib/http/middleware/': 'builds the parts',
  'lib/http/formBody.ts': 'parses a form body for the body parser',
  // Not HTTP API endpoints: the static web pages (no input but the asset name) and the WebSocket events.
  'functions/web/serve.ts': 'static pages, not an endpoint()',
  'lib/events/socket.ts': 'WebSocket events, not HTTP',
};
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('no handler reads the raw event input by hand', () => {
  it('functions/** and lib/** read query, path and body only through endpoint()', () => {
    const root = process.cwd();
    const offenders: string[] = [];
    let scanned = 0;
    for (const file of [...files(join(root, 'functions')), ...files(join(root, 'lib'))]) {
      const rel = relative(root, file);
      scanned++;
      if (Object.keys(ALLOWED).some((a) => rel === a || (a.endsWith('/') && rel.startsWith(a)))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (RAW_FIELDS.test(line) && !/^\s*(\*|\/\/)/.test(line))
            offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(scanned).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });

  it('the pattern catches what it should', () => {
    for (const line of [
      'const q = event.queryStringParameters ?? {};',
      'event.multiValueQueryStringParameters?.[key]',
      'const { pathParameters } = event;',
      'JSON.parse(event.body)',
      'input.event?.body',
    ])
      expect(RAW_FIELDS.test(line), line).toBe(true);
    for (const line of ['const { body } = input;', 'rawBody', 'request.body'])
      expect(RAW_FIELDS.test(line), line).toBe(false);
  });
});
