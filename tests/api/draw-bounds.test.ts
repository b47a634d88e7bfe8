import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { type As, add, history, makeFile, newUser, post, postForm, square } from './drawHelpers.ts';

/**
 * The declared limits of the draw and files bodies (docs/draw.md, "Bodies"): each violation is a 400
 * naming the field, as JSON and as a jQuery form, and nothing changes in the database.
 */

let me: As & { username: string };
beforeAll(async () => {
  me = await newUser();
});

/** Sends a JSON body text as it is (for nesting deeper than this process's JSON.stringify can go). */
const postText = (path: string, text: string, as: As) =>
  call('POST', path, { body: text, cookie: as.cookie, headers: { 'content-type': 'application/json' } });

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/**
 * What a bad request could have changed: the file's history and the caller's own files (the list also
 * holds other test files' public files, made meanwhile).
 */
async function state(file: number) {
  const files = await post('/api/files/getfiles', {}, me);
  const mine = (files.body.body as { file_owner: string }[]).filter((f) => f.file_owner === me.username);
  return { history: await history(me, file), files: mine };
}

describe('draw and files bodies: declared bounds', () => {
  it('refuses too long, too many, repeated, wrongly typed, NUL and too deep values, changing nothing', async () => {
    const file = await makeFile(me);
    const a = await add(me, file, square(0, 0, 1));
    const b = await add(me, file, square(5, 5, 1));
    const before = await state(file);
    const manyIds = Array.from({ length: 1001 }, (_, i) => i + 1);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      // too long
      [
        '/api/files/change',
        { id: file, file_name: 'x'.repeat(501) },
        /^Body field 'file_name' must NOT have more than 500 characters/,
      ],
      [
        '/api/files/change',
        { id: file, file_description: 'x'.repeat(10_001) },
        /'file_description' must NOT have more than 10000/,
      ],
      [
        '/api/files/make',
        { file_name: 'n', public_editors: ['x'.repeat(65)] },
        /'public_editors\.0' must NOT have more than 64/,
      ],
      [
        '/api/files/modifykeyword',
        { keyword: 'k'.repeat(201), type: 'tags' },
        /'keyword' must NOT have more than 200/,
      ],
      // too many and repeated ids
      [
        '/api/draw/merge',
        { file_id: file, prop_id: a.id, ids: manyIds },
        /'ids' must NOT have more than 1000 items/,
      ],
      [
        '/api/draw/merge',
        { file_id: file, prop_id: a.id, ids: [a.id, b.id, b.id] },
        /'ids' must NOT have duplicate items/,
      ],
      [
        '/api/draw/split',
        {
          file_id: file,
          ids: [a.id, a.id],
          split: {
            type: 'LineString',
            coordinates: [
              [0.5, -1],
              [0.5, 2],
            ],
          },
        },
        /'ids' must NOT have duplicate items/,
      ],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), bulk_ids: [a.id, a.id] },
        /'bulk_ids' must NOT have duplicate/,
      ],
      // wrong types and ranges
      ['/api/draw/remove', { file_id: file, id: 'one' }, /^Body field 'id' must be integer/],
      ['/api/draw/remove', { file_id: file, id: -1 }, /^Body field 'id' must be >= 0/],
      ['/api/draw/remove', { file_id: 1e20, id: a.id }, /^Body field 'file_id' must be <= 9007199254740991/],
      ['/api/draw/merge', { file_id: file, prop_id: a.id, ids: [a.id, 'x'] }, /'ids\.1' must be integer/],
      ['/api/draw/undo', { file_id: file, undo_time: 1.5 }, /'undo_time' must be integer/],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), order: 'top' },
        /'order' must match pattern/,
      ],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), to_history: 'maybe' },
        /'to_history' must be boolean/,
      ],
      [
        '/api/files/change',
        { id: file, publicity_type: 'everyone' },
        /'publicity_type' must be equal to one of the allowed values/,
      ],
      // NUL characters
      [
        '/api/files/change',
        { id: file, file_name: 'a\u0000b' },
        /'file_name' (must not contain a NUL character|must match pattern)/,
      ],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), properties: { name: 'a\u0000b' } },
        /^Body field 'properties\.name' must not contain a NUL character/,
      ],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), properties: '{"name":"a\\u0000b"}' },
        /^Body field 'properties\.name' must not contain a NUL character/,
      ],
      [
        '/api/draw/edit',
        { file_id: file, feature_id: a.id, properties: { 'k\u0000': 1 } },
        /^Body field name "k\\u0000" must not contain a NUL character\.$/,
      ],
      [
        '/api/files/change',
        { id: file, template: { fields: ['\u0000'] } },
        /^Body field 'template\.fields\[0\]' must not contain a NUL/,
      ],
      [
        '/api/files/modifykeyword',
        { keyword: 'a\u0000', type: 'tags' },
        /'keyword' (must not contain a NUL character|must match pattern)/,
      ],
      // nesting, and keys no field needs
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), properties: nested(40) },
        /^Body field 'properties(\.a)*' is nested deeper than 32 levels\.$/,
      ],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), properties: nested(100_000) },
        /'properties(\.a)*' is nested deeper than 32/,
      ],
      [
        '/api/draw/add',
        {
          file_id: file,
          geometry: `{"type":"Point","coordinates":${'['.repeat(33)}1${']'.repeat(33)}}`,
        },
        /^Body field 'geometry\.coordinates(\[0\])*' is nested deeper than 32 levels\.$/,
      ],
      [
        '/api/draw/add',
        { file_id: file, geometry: square(2, 2, 1), properties: '{"__proto__":{"admin":true}}' },
        /^Body field 'properties\.__proto__' is not allowed \(a reserved key\)\.$/,
      ],
    ];
    for (const [path, body, msg] of cases) {
      for (const send of [post, postForm] as const) {
        // A form carries strings: an object goes as its JSON text, as MMGIS's client sends it, and so
        // does a list longer than a form's 1000 fields allow.
        const asText = (v: unknown) =>
          v && typeof v === 'object' && (!Array.isArray(v) || v.length > 100) ? JSON.stringify(v) : v;
        const sent =
          send === postForm ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, asText(v)])) : body;
        const r = await send(path, sent, me);
        expect([path, send.name, r.status, r.body.message]).toEqual([
          path,
          send.name,
          400,
          expect.stringMatching(msg),
        ]);
        expect(r.body.status).toBe('failure');
      }
    }
    expect(await state(file)).toEqual(before);
  });

  it('refuses properties nested 200,000 deep in a JSON body (not a string) with a 400', async () => {
    const file = await makeFile(me);
    const before = await state(file);
    const text = `{"file_id":${file},"geometry":${JSON.stringify(square(0, 0, 1))},"properties":${nested(200_000)}}`;
    const r = await postText('/api/draw/add', text, me);
    expect(r.status).toBe(400);
    // The generic guard (lib/http/inputGuards.ts) names the path where the limit was reached.
    expect(r.body.message).toMatch(/^Body field 'properties(\.a)*' is nested deeper than 32 levels\.$/);
    expect(await state(file)).toEqual(before);
  });

  it('getfile reads at most 100 files, each once', async () => {
    const files: number[] = [];
    for (let i = 0; i < 10; i++) {
      files.push(...(await Promise.all(Array.from({ length: 10 }, () => makeFile(me)))));
    }
    await add(me, files[99], square(0, 0, 1), { properties: { name: 'last' } });
    for (const send of [post, postForm] as const) {
      const all = await send('/api/files/getfile', { id: files }, me);
      expect(all.status).toBe(200);
      expect(all.body.body.file.map((f: any) => f.id)).toEqual(files);
      expect(all.body.body.geojson.features.map((f: any) => f.properties.name)).toEqual(['last']);
      const asText = await send('/api/files/getfile', { id: JSON.stringify(files) }, me);
      expect(asText.body.body.file).toHaveLength(100);

      const tooMany = await send('/api/files/getfile', { id: [...files, files[0] + 100_000] }, me);
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.message).toMatch(/^Body field 'id' must NOT have more than 100 items/);
      const repeated = await send('/api/files/getfile', { id: [files[0], files[1], files[0]] }, me);
      expect(repeated.status).toBe(400);
      expect(repeated.body.message).toMatch(/^Body field 'id' must NOT have duplicate items/);
      const repeatedText = await send('/api/files/getfile', { id: `[${files[0]},${files[0]}]` }, me);
      expect(repeatedText.status).toBe(400);
      expect(repeatedText.body.message).toMatch(/^Body field 'id' must NOT have duplicate items/);
    }
    // One file the caller may not read among the 100 refuses the whole request (docs/draw.md, "Access").
    const other = await newUser();
    const secret = await makeFile(other, { public: '0' });
    const refused = await post('/api/files/getfile', { id: [...files.slice(1), secret] }, me);
    expect([refused.status, refused.body.message]).toEqual([403, `You may not read file ${secret}.`]);
    // 10,000 ids (the old cap) as a string of JSON: refused by the declared maximum before any query.
    const tenThousand = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => i + 1));
    const big = await post('/api/files/getfile', { id: tenThousand }, me);
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/^Body field 'id' must NOT have more than (100 items|2000 characters)/);
  });

  it("takes MMGIS's clip setting `off` as no clipping", async () => {
    const file = await makeFile(me);
    const a = await add(me, file, square(0, 0, 2));
    const form = await postForm(
      '/api/draw/add',
      {
        file_id: file,
        intent: 'polygon',
        geometry: JSON.stringify(square(1, 1, 2)),
        properties: '{}',
        clip: 'off',
        tag: '',
      },
      me,
    );
    expect(form.status).toBe(200);
    const h = await history(me, file);
    expect(h[0].history).toEqual([a.id, form.body.body.id]);
  });

  it("keeps MMGIS's own draw tool calls working (forms, JSON as strings, jQuery's nulls)", async () => {
    const file = await makeFile(me, { intent: 'all' });
    const editor = await newUser();
    // The file edit dialog: template as a string of JSON (here of null), a null publicity type sent as
    // `publicity_type=`, editors as a comma-separated string, `public` as 1.
    const changed = await postForm(
      '/api/files/change',
      {
        id: file,
        file_name: 'renamed',
        file_description: 'd ~#tag',
        public: 1,
        template: 'null',
        publicity_type: '',
        public_editors: ` ${editor.username}, `,
      },
      me,
    );
    expect(changed.status).toBe(200);
    expect(changed.body.body).toMatchObject({
      file_name: 'renamed',
      public: '1',
      template: null,
      publicity_type: null,
      public_editors: [editor.username],
    });
    const a = await add(me, file, { type: 'Point', coordinates: [1, 2] }, { properties: { name: 'p' } });
    // draw_edit with reassignUUID, and the export's getfile of a string of JSON with `published`.
    const edited = await postForm(
      '/api/draw/edit',
      { feature_id: a.id, file_id: file, reassignUUID: true },
      me,
    );
    expect(edited.status).toBe(200);
    expect(edited.body.body.uuid).not.toBe(a.uuid);
    const exported = await postForm('/api/files/getfile', { id: `[${file}]`, published: true }, me);
    expect(exported.status).toBe(200);
    expect(exported.body.body.geojson.features).toEqual([]);
    const now = await postForm('/api/files/getfile', { id: file }, me);
    expect(now.body.body.geojson.features.map((f: any) => f.properties.name)).toEqual(['p']);
  });
});
