import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { adminToken, apiUrlLocal, call, uniqueName } from '../helpers.ts';

const upload = (name: string, csv: string, mode?: string, token = adminToken()) =>
  call('POST', `/api/datasets/upload?name=${name}${mode ? `&mode=${mode}` : ''}`, {
    body: csv,
    token,
    headers: { 'content-type': 'text/csv' },
  });
const download = (name: string) =>
  call('GET', `/api/datasets/download?layer=${name}`, { token: adminToken() });
const get = (queries: unknown) => call('POST', '/api/datasets/get', { body: { queries } });

// Quoting edge cases: embedded commas, doubled quotes, newlines (LF and CRLF) inside quotes, empty cells,
// spaces kept, CRLF record ends, a UTF-8 BOM.
const TRICKY =
  '\ufeffid,name,notes\r\n' +
  '1,"Smith, Jane","said ""hi"""\r\n' +
  '2,plain,"line one\nline two"\r\n' +
  '3,,"crlf\r\ninside"\r\n' +
  '4,  spaced  ,\r\n' +
  '5,"",last\n';
const TRICKY_ROWS = [
  ['1', 'Smith, Jane', 'said "hi"'],
  ['2', 'plain', 'line one\nline two'],
  ['3', '', 'crlf\r\ninside'],
  ['4', '  spaced  ', ''],
  ['5', '', 'last'],
];

describe('datasets', () => {
  it('uploads RFC 4180 CSV and keeps every value exactly, as text', async () => {
    const name = uniqueName('ds');
    const res = await upload(name, TRICKY);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'success',
      body: { name, rows: 5, columns: ['id', 'name', 'notes'] },
    });
    const dl = await download(name);
    expect(dl.body.body).toEqual(TRICKY_ROWS.map(([id, n, notes]) => ({ id, name: n, notes })));
  });

  it('downloads CSV that parses back to the same table', async () => {
    const name = uniqueName('ds');
    await upload(name, TRICKY);
    const res = await call('GET', `/api/datasets/download?layer=${name}&format=csv`, { token: adminToken() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const back = parse(res.text) as string[][];
    expect(back).toEqual([['id', 'name', 'notes'], ...TRICKY_ROWS]);
    // And uploading the download again gives the same rows.
    const again = uniqueName('ds');
    const re = await upload(again, res.text);
    expect(re.status).toBe(200);
    expect((await download(again)).body.body).toEqual((await download(name)).body.body);
  });

  it('get answers each query on its own; unknown dataset or column does not hide the others', async () => {
    const name = uniqueName('ds');
    await upload(name, 'site,value\nA,1\nB,2\nA,3\n');
    const res = await get([
      { dataset: name, column: 'site', search: 'A' },
      { dataset: 'no_such_dataset_x', column: 'site', search: 'A' },
      { dataset: name, column: 'nope', search: 'A' },
      { dataset: name, column: 'value', search: 2 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual([
      {
        dataset: name,
        column: 'site',
        search: 'A',
        results: [
          { site: 'A', value: '1' },
          { site: 'A', value: '3' },
        ],
      },
      {
        dataset: 'no_such_dataset_x',
        column: 'site',
        search: 'A',
        results: [],
        error: expect.stringContaining('not found'),
      },
      { dataset: name, column: 'nope', search: 'A', results: [], error: expect.stringContaining("'nope'") },
      { dataset: name, column: 'value', search: 2, results: [{ site: 'B', value: '2' }] },
    ]);
  });

  it('get accepts the map client form (queries as a JSON string) and caps at 100 rows', async () => {
    const name = uniqueName('ds');
    const rows = Array.from({ length: 150 }, (_, i) => `k,${i}`).join('\n');
    await upload(name, `key,n\n${rows}\n`);
    const res = await call('POST', '/api/datasets/get', {
      body: new URLSearchParams({
        queries: JSON.stringify([{ dataset: name, column: 'key', search: 'k' }]),
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    const results = res.body.body[0].results;
    expect(results).toHaveLength(100);
    expect(results.map((r: any) => r.n)).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
  });

  it('append adds rows and new columns; replace swaps the table', async () => {
    const name = uniqueName('ds');
    await upload(name, 'a,b\n1,2\n');
    const app = await upload(name, 'b,c\n3,4\n', 'append');
    expect(app.body.body).toMatchObject({ rows: 2, columns: ['a', 'b', 'c'] });
    expect((await download(name)).body.body).toEqual([
      { a: '1', b: '2', c: '' },
      { a: '', b: '3', c: '4' },
    ]);
    const rep = await upload(name, 'x\n9\n');
    expect(rep.body.body).toMatchObject({ rows: 1, columns: ['x'] });
    expect((await download(name)).body.body).toEqual([{ x: '9' }]);
  });

  it.each([
    ['an unclosed quote', 'a,b\n1,2\n3,"oops\n', 3],
    ['a short row', 'a,b\n1,2\n3\n', 3],
    ['a long row', 'a,b\n1,2\n3,4\n5,6,7\n', 4],
  ])('a malformed CSV (%s) is a 400 naming the line and changes nothing', async (_l, csv, line) => {
    const name = uniqueName('ds');
    await upload(name, 'a,b\nkeep,me\n');
    for (const mode of ['replace', 'append']) {
      const res = await upload(name, csv, mode);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(`line ${line}`);
    }
    expect((await download(name)).body.body).toEqual([{ a: 'keep', b: 'me' }]);
  });

  it('refuses duplicate or empty header names, bad names and an empty file', async () => {
    expect((await upload(uniqueName('ds'), 'a,a\n1,2\n')).status).toBe(400);
    expect((await upload(uniqueName('ds'), 'a,,c\n1,2,3\n')).status).toBe(400);
    expect((await upload('bad/name', 'a\n1\n')).status).toBe(400);
    expect((await upload(uniqueName('ds'), '')).status).toBe(400);
  });

  it('recreate takes MMGIS JSON rows (array or string), full or append', async () => {
    const name = uniqueName('ds');
    const full = await call('POST', '/api/datasets/recreate', {
      token: adminToken(),
      body: {
        name,
        header: ['id', 'v'],
        csv: JSON.stringify([
          { id: 1, v: 'x' },
          { id: 2, v: null },
        ]),
        mode: 'full',
      },
    });
    expect(full.status).toBe(200);
    const app = await call('POST', '/api/datasets/recreate', {
      token: adminToken(),
      body: { name, csv: [{ id: '3', v: 'z', w: true }], mode: 'append' },
    });
    expect(app.body.body).toMatchObject({ rows: 3, columns: ['id', 'v', 'w'] });
    expect((await download(name)).body.body).toEqual([
      { id: '1', v: 'x', w: '' },
      { id: '2', v: '', w: '' },
      { id: '3', v: 'z', w: 'true' },
    ]);
    const bad = await call('POST', '/api/datasets/recreate', {
      token: adminToken(),
      body: { name, csv: 'not json', mode: 'full' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("'csv'");
  });

  it('entries list rows, columns and occurrences by datasetLinks; remove deletes (404 after)', async () => {
    const name = uniqueName('ds');
    await upload(name, 'k,v\n1,2\n');
    const mission = uniqueName('M');
    const config = {
      msv: { view: [0, 0, 1] },
      tools: [],
      layers: [
        {
          name: 'Head',
          type: 'header',
          sublayers: [
            {
              name: 'Pts',
              type: 'vector',
              url: 'x.json',
              variables: { datasetLinks: [{ dataset: name, column: 'k' }] },
            },
          ],
        },
      ],
    };
    const up = await call('POST', '/api/configure/upsert', {
      token: adminToken(),
      body: { mission, config },
    });
    expect(up.status).toBe(200);
    const res = await call('POST', '/api/datasets/entries', { token: adminToken() });
    const entry = res.body.body.entries.find((e: any) => e.name === name);
    expect(entry).toMatchObject({ name, rows: 1, columns: ['k', 'v'], updated: expect.any(String) });
    expect(entry.occurrences[mission]).toEqual([{ name: 'Pts', uuid: expect.any(String), path: 'Head' }]);

    expect((await call('DELETE', `/api/datasets/remove/${name}`, { token: adminToken() })).status).toBe(200);
    expect((await call('DELETE', `/api/datasets/remove/${name}`, { token: adminToken() })).status).toBe(404);
    expect((await download(name)).status).toBe(404);
    await call('POST', '/api/configure/destroy', { token: adminToken(), body: { mission } });
  });

  it('writes need an admin; get needs a login under AUTH=local', async () => {
    expect((await upload(uniqueName('ds'), 'a\n1\n', undefined, '')).status).toBe(401);
    const res = await call('POST', '/api/datasets/get', { body: { queries: [] }, base: apiUrlLocal() });
    expect(res.status).toBe(401);
  });
});

describe('datasets: declared input bounds (400 naming the field, nothing changes)', () => {
  const q = (name: string, extra: Record<string, unknown> = {}) => ({
    dataset: name,
    column: 'site',
    search: 'A',
    ...extra,
  });

  it('get takes at most 50 queries, as JSON or as the form JSON text; 51 is a 400 naming queries', async () => {
    const name = uniqueName('ds');
    await upload(name, 'site,value\nA,1\nB,2\n');
    const ok = await get(Array.from({ length: 50 }, () => q(name)));
    expect(ok.status).toBe(200);
    expect(ok.body.body).toHaveLength(50);
    const over = await get(Array.from({ length: 51 }, () => q(name)));
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/'queries'.*50/);
    const form = await call('POST', '/api/datasets/get', {
      body: new URLSearchParams({
        queries: JSON.stringify(Array.from({ length: 51 }, () => q(name))),
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.body.message).toMatch(/'queries'.*50/);
  });

  it('get answers identical queries alike, in order (they are run once)', async () => {
    const name = uniqueName('ds');
    await upload(name, 'site,value\nA,1\nB,2\nA,3\n');
    const res = await get([q(name), q(name, { search: 'B' }), q(name), q(name, { prop: 'p', type: 'data' })]);
    expect(res.status).toBe(200);
    const a = [
      { site: 'A', value: '1' },
      { site: 'A', value: '3' },
    ];
    expect(res.body.body.map((x: any) => x.results)).toEqual([a, [{ site: 'B', value: '2' }], a, a]);
    expect(res.body.body.map((x: any) => x.search)).toEqual(['A', 'B', 'A', 'A']);
  });

  it.each([
    ['a dataset name over 128 characters', [q('d'.repeat(129))], "'queries.0.dataset'"],
    ['a column over 1024 characters', [q('x', { column: 'c'.repeat(1025) })], "'queries.0.column'"],
    ['a search over 1024 characters', [q('x', { search: 's'.repeat(1025) })], "'queries.0.search'"],
    ['an object as search', [q('x', { search: { a: 1 } })], "'queries.0.search'"],
    ['no column', [{ dataset: 'x', search: 'A' }], "'queries.0.column'"],
    ['a query that is not an object', ['x'], "'queries.0'"],
    ['queries that are not a list', { a: 1 }, "'queries'"],
  ])('get refuses %s with a 400 naming it', async (_l, queries, field) => {
    const res = await get(queries);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it('get: a search of exactly 1024 characters is accepted (no rows match)', async () => {
    const name = uniqueName('ds');
    await upload(name, 'site\nA\n');
    const res = await get([q(name, { search: 's'.repeat(1024) })]);
    expect(res.status).toBe(200);
    expect(res.body.body[0].results).toEqual([]);
  });

  it('upload/download/remove: a name of 128 characters is fine, 129 or a slash is a 400 naming it', async () => {
    const long = `${uniqueName('ds')}_`.padEnd(128, 'x');
    expect((await upload(long, 'a\n1\n')).status).toBe(200);
    expect((await download(long)).body.body).toEqual([{ a: '1' }]);
    for (const bad of [`${long}x`, 'a b', '']) {
      const res = await upload(encodeURIComponent(bad), 'a\n1\n');
      expect(res.status).toBe(400);
      expect(res.body.message).toContain("'name'");
    }
    const dl = await call('GET', `/api/datasets/download?layer=${long}x`, { token: adminToken() });
    expect(dl.status).toBe(400);
    expect(dl.body.message).toContain("'layer'");
    const mode = await upload(long, 'a\n2\n', 'merge');
    expect(mode.status).toBe(400);
    expect(mode.body.message).toContain("'mode'");
    const rm = await call('DELETE', `/api/datasets/remove/${long}x`, { token: adminToken() });
    expect(rm.status).toBe(400);
    expect(rm.body.message).toContain("'name'");
    expect((await download(long)).body.body).toEqual([{ a: '1' }]);
  });

  it.each([
    ['a duplicate header', { header: ['a', 'a'], csv: [{ a: 1 }] }, "'header'"],
    ['an empty header name', { header: ['a', ''], csv: [{ a: 1 }] }, "'header.1'"],
    ['a header as JSON text with a duplicate', { header: '["a","a"]', csv: [{ a: 1 }] }, "'header'"],
    ['a row that is not an object', { csv: [{ a: 1 }, 2] }, "'csv.1'"],
    ['rows as JSON text holding a non-object', { csv: '[{"a":1},2]' }, "'csv.1'"],
    ['an unknown mode', { csv: [{ a: 1 }], mode: 'merge' }, "'mode'"],
    ['no csv', { header: ['a'] }, "'csv'"],
  ])('recreate refuses %s with a 400 naming it, and changes nothing', async (_l, fields, field) => {
    const name = uniqueName('ds');
    await upload(name, 'a\nkeep\n');
    const res = await call('POST', '/api/datasets/recreate', {
      token: adminToken(),
      body: { name, ...fields },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect((await download(name)).body.body).toEqual([{ a: 'keep' }]);
  });
});

describe('datasets: CSV cells', () => {
  it('a __proto__ or constructor column is stored and read back as plain data', async () => {
    const name = uniqueName('ds');
    const up = await upload(name, '__proto__,constructor,toString\nx,y,z\n,,\n');
    expect(up.status).toBe(200);
    expect(up.body.body.columns).toEqual(['__proto__', 'constructor', 'toString']);
    const dl = await download(name);
    // JSON.parse keeps `__proto__` as an own key: compare the entries, not object literals.
    expect(dl.body.body.map((r: object) => Object.entries(r))).toEqual([
      [
        ['__proto__', 'x'],
        ['constructor', 'y'],
        ['toString', 'z'],
      ],
      [
        ['__proto__', ''],
        ['constructor', ''],
        ['toString', ''],
      ],
    ]);
    const csv = await call('GET', `/api/datasets/download?layer=${name}&format=csv`, { token: adminToken() });
    expect(csv.text).toBe('__proto__,constructor,toString\r\nx,y,z\r\n,,\r\n');
    const found = await get([{ dataset: name, column: '__proto__', search: 'x' }]);
    expect(Object.entries(found.body.body[0].results[0])).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['toString', 'z'],
    ]);
    // A column added by an append reads as empty in older rows, whatever its name.
    await upload(name, 'hasOwnProperty\nw\n', 'append');
    expect(Object.entries((await download(name)).body.body[0])).toContainEqual(['hasOwnProperty', '']);
  });

  it('download CSV neutralizes cells a spreadsheet would run as formulas; plain negative numbers stay', async () => {
    const name = uniqueName('ds');
    const cells = [
      '=1+2',
      '+SUM(A1)',
      '-2+3+cmd',
      '@x',
      '\tx',
      '\rx',
      '-3',
      '-0.5',
      '-1e3',
      '3',
      "'=a",
      'a=b',
    ];
    const csvIn = `${cells.map((_, i) => `c${i}`).join(',')}\r\n${cells.map((c) => `"${c}"`).join(',')}\r\n`;
    expect((await upload(name, csvIn)).status).toBe(200);
    // The JSON download keeps every value as stored.
    expect(Object.values((await download(name)).body.body[0])).toEqual(cells);
    const res = await call('GET', `/api/datasets/download?layer=${name}&format=csv`, { token: adminToken() });
    const row = res.text.split('\r\n')[1];
    // A cell that already starts with `'=` is not prefixed again, but quoted like the neutralized ones.
    expect(row).toBe(`"'=1+2","'+SUM(A1)","'-2+3+cmd","'@x","'\tx","'\rx",-3,-0.5,-1e3,3,"'=a",a=b`);
    expect((parse(res.text) as string[][])[1]).toEqual([
      "'=1+2",
      "'+SUM(A1)",
      "'-2+3+cmd",
      "'@x",
      "'\tx",
      "'\rx",
      '-3',
      '-0.5',
      '-1e3',
      '3',
      "'=a",
      'a=b',
    ]);
  });

  it('a header cell that starts like a formula is neutralized too', async () => {
    const name = uniqueName('ds');
    await upload(name, '"=HYPERLINK(""x"")",b\n1,2\n');
    const res = await call('GET', `/api/datasets/download?layer=${name}&format=csv`, { token: adminToken() });
    expect(res.text.split('\r\n')[0]).toBe(`"'=HYPERLINK(""x"")",b`);
  });
});
