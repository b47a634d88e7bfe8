import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { expectedIds, metaOf, numeric, type Row, readFeatures, T0 } from '../fixtures/readModel.ts';
import { apiUrl, apiUrlLocal, call, uniqueName } from '../helpers.ts';

const db = getDb();
const features = readFeatures(150, 11);
const rows: Row[] = features.map((feature, i) => ({ id: i + 1, feature }));
const name = uniqueName('gdr_api');
const day = 86400000;

beforeAll(async () => {
  await recreateGeodataset(
    db,
    { type: 'FeatureCollection', features },
    { name, startProp: 't0', endProp: 't1', groupIdProp: 'g' },
  );
});

afterAll(async () => {
  const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
  if (row) {
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${name}`;
  }
});

const get = (qs: string, path = '/api/geodatasets/get') => call('GET', `${path}?${qs}`);
const idsOf = (body: any) => body.features.map((f: any) => f.properties._.idx);

describe('GET /api/geodatasets/get (HTTP)', () => {
  it('answers a bare FeatureCollection as application/json', async () => {
    const res = await get(`layer=${name}&type=geojson`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.type).toBe('FeatureCollection');
    expect(idsOf(res.body)).toEqual(rows.map((r) => r.id));
    expect(res.body.features[0]).toEqual({
      type: 'Feature',
      geometry: features[0].geometry,
      properties: {
        ...JSON.parse(JSON.stringify(features[0].properties)),
        _: metaOf(features[0].properties, 1),
      },
    });
  });

  it('takes the layer from the path in the /get/{layer} form', async () => {
    const res = await get('type=geojson&group_id=B', `/api/geodatasets/get/${name}`);
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual(expectedIds(rows, { groupId: 'B' }, true));
  });

  it('accepts POST /api/geodatasets/get with the parameters in the body', async () => {
    const res = await call('POST', '/api/geodatasets/get', {
      body: { layer: name, type: 'geojson', minx: -5, miny: -5, maxx: 5, maxy: 5, noDuplicates: true },
    });
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual(expectedIds(rows, { bbox: [-5, -5, 5, 5], noDuplicates: true }, true));
  });

  const gt = (p: Record<string, unknown>) => (numeric(p.n) ?? Number.NaN) > 5;
  for (const [label, filters] of [
    ['a literal +', 'n+>+number+5'],
    ['%2B', 'n%2B%3E%2Bnumber%2B5'],
    ['a space (%20)', 'n%20%3E%20number%205'],
  ]) {
    it(`filters with ${label} as separator`, async () => {
      const res = await get(`layer=${name}&type=geojson&filters=${filters}`);
      expect(res.status).toBe(200);
      const want = expectedIds(rows, { filters: [gt] }, true);
      expect(want.length).toBeGreaterThan(0);
      expect(idsOf(res.body)).toEqual(want);
    });
  }

  it('combines time, circle, filters, paging and stats over HTTP', async () => {
    const from = new Date(T0 + 30 * day).toISOString();
    const qs = `layer=${name}&type=geojson&starttime=${encodeURIComponent(from)}&spatialFilter=0,0,1200000&filters=s%2Bin%2Bstring%2Balpha$beta&stats=n`;
    const model = {
      from: T0 + 30 * day,
      circle: [0, 0, 1200000] as [number, number, number],
      filters: [(p: Record<string, unknown>) => ['alpha', 'beta'].includes(p.s as string)],
    };
    const all = await get(qs);
    expect(all.status).toBe(200);
    const want = expectedIds(rows, model, true);
    expect(want.length).toBeGreaterThan(3);
    expect(idsOf(all.body)).toEqual(want);
    const page = await get(`${qs}&limit=2&offset=1`);
    expect(idsOf(page.body)).toEqual(want.slice(1, 3));
    // stats before paging: the paged features carry the same stats as in the whole result
    for (const f of page.body.features) {
      const same = all.body.features.find((g: any) => g.properties._.idx === f.properties._.idx);
      expect(f.properties._.stats).toEqual(same.properties._.stats);
    }
  });

  it('answers an empty FeatureCollection for an unknown id or an offset past the end', async () => {
    for (const qs of ['id=999999', 'offset=100000']) {
      const res = await get(`layer=${name}&type=geojson&${qs}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ type: 'FeatureCollection', features: [] });
    }
  });

  it('treats an injection string in a string value as data', async () => {
    const res = await get(
      `layer=${name}&type=geojson&filters=${encodeURIComponent("s+=+string+x' or '1'='1; drop table geodatasets;--")}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.features).toEqual([]);
    expect((await get(`layer=${name}&type=geojson&limit=1`)).body.features.length).toBe(1);
  });

  const bad: [string, string, RegExp][] = [
    ['unknown type', 'type=csv', /'type'/],
    ['non-numeric bbox', 'type=geojson&minx=a&miny=0&maxx=1&maxy=1', /'minx' must be number/],
    // The declared bounds (docs/geodatasets-read.md, "Parameters"): 400 naming the field.
    ['bbox out of range', 'type=geojson&minx=-2000000&miny=0&maxx=1&maxy=1', /'minx' must be >= -1000000/],
    [
      'too long group_id',
      `type=geojson&group_id=${'g'.repeat(1001)}`,
      /'group_id' must NOT have more than 1000/,
    ],
    [
      'too long startProp',
      `type=geojson&startProp=${'p'.repeat(257)}`,
      /'startProp' must NOT have more than 256/,
    ],
    ['too long spatialFilter', `type=geojson&spatialFilter=${'1'.repeat(101)}`, /'spatialFilter'/],
    ['too long layer', `type=geojson&layer=${'l'.repeat(129)}`, /'layer' must NOT have more than 128/],
    [
      'too many _source[]',
      `type=geojson&${Array.from({ length: 101 }, (_, k) => `_source[]=f${k}`).join('&')}`,
      /'_source\[\]' must NOT have more than 100 items/,
    ],
    ['too long stats[] path', `type=geojson&stats[]=a&stats[]=${'b'.repeat(257)}`, /'stats\[\]\.1'/],
    ['id out of range', 'type=geojson&id=99999999999999999999', /'id' must be <=/],
    ['negative id', 'type=geojson&id=-1', /'id' must be >= 0/],
    ['limit out of range', 'type=geojson&limit=-1e300', /'limit' must be >=/],
    ['offset out of range', 'type=geojson&offset=1e300', /'offset' must be <=/],
    ['two values of a single parameter', 'type=geojson&limited=true&limited=x', /'limited'/],
    ['non-integer tile version', 'type=mvt&x=0&y=0&z=0&v=abc', /'v' must be integer/],
    ['partial bbox', 'type=geojson&minx=0&miny=0', /together/],
    ['inverted bbox', 'type=geojson&minx=5&miny=0&maxx=1&maxy=1', /'minx'.*greater/],
    ['radius 0', 'type=geojson&spatialFilter=0,0,0', /radius/],
    ['negative radius', 'type=geojson&spatialFilter=0,0,-5', /radius/],
    ['malformed spatialFilter', 'type=geojson&spatialFilter=1,2', /spatialFilter/],
    ['latitude out of range', 'type=geojson&spatialFilter=95,0,10', /latitude/],
    ['unknown op', 'type=geojson&filters=n%2B~%2Bnumber%2B5', /unknown op/],
    ['unknown filter type', 'type=geojson&filters=n%2B%3D%2Bdate%2B5', /unknown type/],
    ['number value not a number', 'type=geojson&filters=n%2B%3D%2Bnumber%2Babc', /not a number/],
    ['number in list with a non-number', 'type=geojson&filters=n%2Bin%2Bnumber%2B1$x', /not a number/],
    ['malformed filter entry', 'type=geojson&filters=n%2B%3D', /key\+op\+type\+value/],
    [
      'injection in a filter key',
      `type=geojson&filters=${encodeURIComponent("n');drop table x;--+=+string+1")}`,
      /filters/,
    ],
    ['injection in _source', `type=geojson&_source=${encodeURIComponent("name,x'||pg_sleep(1)")}`, /_source/],
    ['injection in stats', `type=geojson&stats=${encodeURIComponent('n;select 1')}`, /stats/],
    ['bad starttime', 'type=geojson&starttime=yesterday', /'starttime'.*ISO 8601/],
    ['February 30', 'type=geojson&starttime=2024-02-30', /'starttime'/],
    ['starttime after endtime', 'type=geojson&starttime=2024-05-01&endtime=2024-01-01', /after/],
    [
      'the spec default pattern written as a custom format that silently reads midnight',
      `type=geojson&starttime=2024-01-01T13:00:00Z&format=${encodeURIComponent('YYYY-MM-DDTHH:MI:SS')}`,
      /'format'/,
    ],
    [
      'starttime not matching the format',
      'type=geojson&starttime=hello&format=YYYY-MM-DD',
      /'starttime'|'format'/,
    ],
    ['non-integer limit', 'type=geojson&limit=ten', /'limit'/],
    ['negative offset', 'type=geojson&offset=-1', /'offset'/],
    ['non-integer id', 'type=geojson&id=1.5', /'id'/],
    ['bad boolean', 'type=geojson&noDuplicates=maybe', /'noDuplicates'/],
    ['non-integer tile x', 'type=mvt&x=a&y=0&z=0', /'x'/],
  ];
  for (const [label, qs, message] of bad) {
    it(`400 for ${label}`, async () => {
      const res = await get(`layer=${name}&${qs}`);
      expect(res.status, res.text).toBe(400);
      expect(res.body.status).toBe('failure');
      expect(res.body.message).toMatch(message);
    });
  }

  const badBodies: [string, Record<string, unknown>, RegExp][] = [
    [
      'too long filters',
      { filters: 'a'.repeat(50_001) },
      /Body field 'filters' must NOT have more than 50000/,
    ],
    ['a string for a number (JSON keeps its types)', { limit: '10' }, /Body field 'limit' must be integer/],
    ['an object for a string', { group_id: { a: 1 } }, /Body field 'group_id' must be string/],
    ['too many _source entries', { _source: Array.from({ length: 101 }, (_, k) => `f${k}`) }, /'_source'/],
    ['bad flag', { noDuplicates: 'maybe' }, /'noDuplicates'/],
  ];
  for (const [label, body, message] of badBodies) {
    it(`400 for POST /get with ${label}`, async () => {
      const res = await call('POST', '/api/geodatasets/get', {
        body: { layer: name, type: 'geojson', ...body },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.status).toBe('failure');
      expect(res.body.message).toMatch(message);
    });
  }

  it('takes empty parameters as absent, as jQuery sends undefined values', async () => {
    const res = await get(
      `layer=${name}&type=geojson&minx=&miny=&maxx=&maxy=&starttime=&id=&limit=&noDuplicates=`,
    );
    expect(res.status, res.text).toBe(200);
    expect(idsOf(res.body)).toEqual(expectedIds(rows, {}, true));
  });

  it('400 for a malformed layer name, 404 for an unknown one', async () => {
    const badName = await get("layer=x';drop&type=geojson");
    expect(badName.status).toBe(400);
    expect(badName.body.message).toMatch(/'layer'/);
    const unknown = await get(`layer=${uniqueName('nope')}&type=geojson`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe('failure');
  });

  it('needs a login under AUTH=local', async () => {
    const res = await call('GET', `/api/geodatasets/get?layer=${name}&type=geojson`, { base: apiUrlLocal() });
    expect(res.status).toBe(401);
  });

  it('ignores stats (and paging) for mvt: the same tile with or without them', async () => {
    const tile = async (extra: string) => {
      const res = await fetch(`${apiUrl()}/api/geodatasets/get?layer=${name}&type=mvt&x=0&y=0&z=0${extra}`);
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        bytes: Buffer.from(await res.arrayBuffer()),
      };
    };
    const plain = await tile('');
    const withStats = await tile('&stats=n,nested.a.b&limit=1&offset=5&limited=true');
    expect(plain.status).toBe(200);
    expect(plain.type).toMatch(/protobuf/);
    expect(plain.bytes.length).toBeGreaterThan(100);
    expect(withStats.status).toBe(200);
    expect(withStats.bytes.equals(plain.bytes)).toBe(true);
  });
});
