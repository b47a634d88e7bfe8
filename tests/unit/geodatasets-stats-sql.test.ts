import { describe, expect, it } from 'vitest';
import { compileCql2WithCost } from '#lib/cql2/compile.ts';
import { parseCql2 } from '#lib/cql2/filter.ts';
import { CQL2_LIMITS } from '#lib/cql2/limits.ts';
import { sqlTextOf } from '#lib/db/sqlText.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { COLUMN_QUERYABLES, type Queryables } from '#lib/geodatasets/read/cql2/queryables.ts';
import { cql2Target } from '#lib/geodatasets/read/cql2/readFilter.ts';
import { parseReadFilters, type ReadFilters } from '#lib/geodatasets/read/filters.ts';
import { featuresQuery, parseGeojsonOptions } from '#lib/geodatasets/read/geojson.ts';
import { MAX_FIELDS } from '#lib/geodatasets/read/readParams.ts';

/**
 * The size of a GeoJSON read's statement with `stats` (docs/geodatasets-read.md, "stats"), as the Data API
 * driver writes it: the numeric rule's SQL is written once whatever the number of fields, so the most
 * fields a request may name fit the Data API's 65,536 characters per statement, beside the longest filter
 * and `_source`.
 */
const DATA_API_SQL = 65_536;

const ds = {
  id: 1,
  name: 'd',
  table: 'gd_1_1',
  propertiesType: 'jsonb',
  numFeatures: 0,
  groupIdProp: 'g',
} as Geodataset;

const names = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, j) => `${prefix}${j}.${'q'.repeat(200)}${j}`).join(',');

const noFilters: ReadFilters = { filters: [], noDuplicates: false };
const statement = (stats: number) =>
  sqlTextOf((s) => featuresQuery(s, ds, noFilters, parseGeojsonOptions({ stats: names(stats, 's') })));

describe('the stats statement grows slowly with the fields', () => {
  it('50 fields: about 15,000 characters; each field about 300, whatever its name', () => {
    const one = statement(1).length;
    const fifty = statement(50).length;
    expect(fifty).toBeLessThan(17_000);
    expect((fifty - one) / 49).toBeLessThan(320);
    // Names and paths are bound parameters: a longer name adds nothing to the text.
    const short = sqlTextOf((s) => featuresQuery(s, ds, noFilters, parseGeojsonOptions({ stats: 'a,b' })));
    const long = sqlTextOf((s) =>
      featuresQuery(
        s,
        ds,
        noFilters,
        parseGeojsonOptions({ stats: `${'a'.repeat(250)},${'b.'.repeat(120)}c` }),
      ),
    );
    expect(long.length).toBe(short.length);
  });

  it('the most fields, the most _source paths and a CQL2 filter at its limit, with noDuplicates: under 65,536', () => {
    const q: Queryables = new Map([...COLUMN_QUERYABLES, ['n', { path: ['n'], type: 'number' }]]);
    const text = (n: number) => Array.from({ length: n }, (_, j) => `n < ${-j}`).join(' OR ');
    const size = (n: number) =>
      sqlTextOf(
        (s) => compileCql2WithCost(parseCql2(text(n), 'cql2-text'), cql2Target(s, ds, q, 't'), 'CRS84').sql,
      ).length;
    let k = 1;
    while (size(k * 2) <= CQL2_LIMITS.maxSqlChars) k *= 2;
    for (let step = k / 2; step >= 1; step /= 2) if (size(k + step) <= CQL2_LIMITS.maxSqlChars) k += step;
    const ast = parseCql2(text(k), 'cql2-text');
    const opts = parseGeojsonOptions({
      _source: names(MAX_FIELDS, 'p'),
      stats: names(MAX_FIELDS, 's'),
      limit: 10,
      offset: 5,
    });
    const sqlText = sqlTextOf((s) => {
      const f: ReadFilters = {
        ...parseReadFilters({ noDuplicates: true, minx: 0, miny: 0, maxx: 1, maxy: 1, group_id: 'x' }),
        cql2: (alias) => compileCql2WithCost(ast, cql2Target(s, ds, q, alias), 'CRS84').sql,
      };
      return featuresQuery(s, ds, f, opts);
    });
    expect(sqlText.length).toBeLessThan(DATA_API_SQL);
  });
});

describe('the legacy `filters` grow slowly with their number entries', () => {
  it('50 number filters (the most a request sends): about 10,000 characters, where a rule each took 156,000', () => {
    const filters = Array.from({ length: 50 }, (_, j) => `p${j}.${'q'.repeat(100)}+>+number+${j}`).join(',');
    const f = parseReadFilters({ filters, noDuplicates: true });
    const text = sqlTextOf((s) =>
      featuresQuery(s, ds, f, parseGeojsonOptions({ stats: names(MAX_FIELDS, 's') })),
    );
    expect(text.length).toBeLessThan(45_000);
  });
});
