import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  invokePackaged,
  type PackagedFunction,
  packagedFunctions,
  proxyEvent,
  runRoot,
} from '../fixtures/lambdaRun.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';

// Binary answers through API Gateway (docs/tiles.md, "Binary answers"). A vector tile is a base64 Lambda
// proxy body. AWS's API Gateway developer guide, "Content type conversions in API Gateway": of several
// media types in Accept, API Gateway honours only the first, matched against the API's binaryMediaTypes;
// and "Binary media types for REST APIs": "To return binary media when you can't control the order of
// Accept header values, such as requests from a browser, set your API's binary media types to */*". A
// request without Accept takes any media type (RFC 9110, 12.5.1), taken here as `*/*`: check it on a
// first deploy (`curl -H 'Accept:' <tile URL> | head -c 8 | xxd` shows no base64 text).
//
// With `*/*`, request bodies reach the functions base64-encoded (`isBase64Encoded`): every packaged
// function that takes a body answers a base64 body exactly as the same body in plain text.

/** API Gateway's rule: the request's first Accept media type, matched by the wildcards of `binaryMediaTypes`. */
function answersBinary(accept: string | undefined, binaryMediaTypes: string[]): boolean {
  const first = (accept ?? '*/*').split(',')[0].split(';')[0].trim().toLowerCase() || '*/*';
  const [type, subtype] = first.split('/');
  return binaryMediaTypes.some((entry) => {
    const [t, s] = entry.toLowerCase().split(';')[0].trim().split('/');
    return (t === '*' || t === type) && (s === '*' || s === subtype);
  });
}

/** What browsers and MapLibre send with a tile request (MapLibre sets Accept only for JSON). */
const TILE_ACCEPTS: (string | undefined)[] = ['*/*', 'image/avif,image/webp,*/*', undefined];

let template: any;
let functions: PackagedFunction[];
let root: string;
const out = mkdtempSync(join(tmpdir(), 'sls-binary-'));

beforeAll(async () => {
  template = JSON.parse(await packageService(out, [], DEFAULT_PACKAGE_ENV));
  functions = packagedFunctions(template, out);
  root = runRoot();
}, 900_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the rule itself', () => {
  it('matches the first Accept value only, with the wildcards of binaryMediaTypes', () => {
    expect(answersBinary('application/x-protobuf', ['application/x-protobuf'])).toBe(true);
    expect(answersBinary('*/*', ['application/x-protobuf'])).toBe(false);
    expect(answersBinary('image/webp,image/*,*/*;q=0.8', ['image/webp'])).toBe(true);
    expect(answersBinary('text/html,application/x-protobuf', ['application/x-protobuf'])).toBe(false);
    expect(answersBinary('image/png', ['image/*'])).toBe(true);
    expect(answersBinary('application/json', ['*/*'])).toBe(true);
  });
});

describe('packaged template: tiles come back binary to browsers and MapLibre', () => {
  it('sets the REST API binary media types to */*', () => {
    expect(template.Resources.ApiGatewayRestApi.Properties.BinaryMediaTypes).toEqual(['*/*']);
  });

  it('answers a tile request binary for every Accept a browser or MapLibre sends', () => {
    const types = template.Resources.ApiGatewayRestApi.Properties.BinaryMediaTypes as string[];
    for (const accept of TILE_ACCEPTS) expect(answersBinary(accept, types), String(accept)).toBe(true);
  });
});

describe('packaged functions: a base64 request body reads as the same body in plain text', () => {
  it('answers every body-taking endpoint the same either way (JSON and a form)', async () => {
    const withBody = functions.filter(
      (f) => f.kind === 'http' && !['GET', 'HEAD'].includes(f.method as string),
    );
    expect(withBody.length).toBeGreaterThan(40);
    const bodies = [
      { type: 'application/json', text: '{"name": "é 火星", "n": 1}' },
      { type: 'application/x-www-form-urlencoded', text: 'name=%C3%A9&n=1' },
    ];
    const differ: string[] = [];
    const queue = [...withBody];
    await Promise.all(
      [0, 1].map(async () => {
        for (let fn = queue.shift(); fn; fn = queue.shift()) {
          const pathParameters = Object.fromEntries(
            [...(fn.resourcePath ?? '').matchAll(/\{(\w+)\+?\}/g)].map((m) => [m[1], 'x']),
          );
          const events = bodies.flatMap(({ type, text }) =>
            [false, true].map((base64) =>
              proxyEvent({
                method: fn.method,
                resource: fn.resourcePath ?? '/',
                pathParameters,
                headers: { Host: 'abc123.execute-api.us-east-1.amazonaws.com', 'Content-Type': type },
                body: base64 ? Buffer.from(text).toString('base64') : text,
                isBase64Encoded: base64,
              }),
            ),
          );
          const answers = await invokePackaged(fn, root, events);
          for (let i = 0; i < answers.length; i += 2) {
            const [plain, encoded] = [answers[i], answers[i + 1]];
            expect(plain.statusCode, `${fn.id}: ${plain.error ?? ''}`).toBeTypeOf('number');
            if (
              JSON.stringify([plain.statusCode, plain.body]) !==
              JSON.stringify([encoded.statusCode, encoded.body])
            )
              differ.push(
                `${fn.id} ${bodies[i / 2].type}: ${plain.statusCode} ${plain.body?.slice(0, 120)} / ${encoded.statusCode} ${encoded.body?.slice(0, 120)}`,
              );
          }
        }
      }),
    );
    expect(differ).toEqual([]);
  }, 900_000);
});
