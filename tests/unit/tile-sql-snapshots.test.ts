import { describe, expect, it } from 'vitest';
import { compileCql2 } from '#lib/cql2/compile.ts';
import { parseCql2 } from '#lib/cql2/filter.ts';
import type { Compiled } from '#lib/db/dataApi/compile.ts';
import { makeSql } from '#lib/db/dataApi/sql.ts';
import type { Fragment } from '#lib/db/fragments.ts';
import type { Sql } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { COLUMN_QUERYABLES, type Queryables } from '#lib/geodatasets/read/cql2/queryables.ts';
import { cql2Target } from '#lib/geodatasets/read/cql2/readFilter.ts';
import { parseReadFilters, type ReadFilters, sqlWhere } from '#lib/geodatasets/read/filters.ts';
import { featuresQuery, parseGeojsonOptions } from '#lib/geodatasets/read/geojson.ts';
import type { TileAddress } from '#lib/geodatasets/read/tileParams.ts';
import { sqlTileMvt, sqlTileRows } from '#lib/geodatasets/tiles/tileSql.ts';

/**
 * The SQL of each shape of tile statement, and of the GeoJSON read's main shapes, as text in
 * `__snapshots__/tile-sql/<shape>.sql`, so a change to a builder shows as a diff of the SQL a reviewer can
 * read (docs/tiles.md describes what it does). Built by the real builders with a `sql` that only compiles
 * (lib/db/sqlText.ts: the Data API driver's, whose placeholders are `:pN` where postgres.js writes `$N`);
 * each file ends with its bound parameters. Trailing spaces, blank lines and the common indentation are
 * removed; nothing else. After an intended change: `npx vitest run tests/unit/tile-sql-snapshots.test.ts --update` (`-u` before the file would take the file as its value),
 * then read the diff.
 *
 * The OGC tile (`/api/ogc/collections/{id}/tiles/...`) runs the same statements with no filters and no
 * `_source`: the `mvt` and `rows` shapes.
 */

function compiling(): Sql {
  const never = () => {
    throw new Error('this sql only compiles; it runs nothing');
  };
  return makeSql({ run: never, cursor: never }, never) as unknown as Sql;
}

function param(v: unknown): string {
  return typeof v === 'bigint' ? `${v}::bigint` : JSON.stringify(v);
}

/** The statement `build` makes, as readable SQL text followed by its parameters. */
function render(build: (sql: Sql) => Fragment): string {
  const { text, values } = (build(compiling()) as unknown as { compile(): Compiled }).compile();
  const lines = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
  const indent = Math.min(...lines.map((l) => l.length - l.trimStart().length));
  const sqlText = lines.map((l) => l.slice(indent)).join('\n');
  const params = values.map((v, i) => `-- :p${i + 1} = ${param(v)}`).join('\n');
  return `${sqlText};\n\n-- parameters (${values.length})\n${params}\n`;
}

const ds: Geodataset = {
  id: 7,
  name: 'places',
  table: 'gd_7_1',
  propertiesType: 'jsonb',
  filename: null,
  numFeatures: 1_000_000,
  startProp: 'start',
  endProp: 'end',
  groupIdProp: null,
  featureIdProp: null,
  fieldStats: null,
  version: 1,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

const queryables: Queryables = new Map([
  ...COLUMN_QUERYABLES,
  ['kind', { path: ['kind'], type: 'string' }],
  ['height', { path: ['height'], type: 'number' }],
]);

/** A z12 tile; the feature cap and byte budget are the defaults (tileSettings, docs/tiles.md). */
const address: TileAddress = { z: 12, x: 2048, y: 1361 };
const CAP = 1024;
const BUDGET = 500_000;

const noFilters: ReadFilters = { filters: [], noDuplicates: false };

/** The tile's `where` as tileResponse builds it: the request's filters and CQL2 condition on alias `t`. */
const where = (sql: Sql, f: ReadFilters = noFilters) => sqlWhere(sql, ds, f, 't');

const legacyFilters = () =>
  parseReadFilters({
    filters: 'kind+=+string+volcano,height+>+number+100',
    startProp: 'start',
    starttime: '2024-01-01T00:00:00Z',
    endtime: '2024-02-01T00:00:00Z',
  });

const withCql2 = (sql: Sql): ReadFilters => {
  const ast = parseCql2(
    "kind IN ('volcano', 'crater') AND height > 100 AND S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))",
    'cql2-text',
  );
  return { ...noFilters, cql2: (alias) => compileCql2(ast, cql2Target(sql, ds, queryables, alias), 'CRS84') };
};

const shapes: Record<string, (sql: Sql) => Fragment> = {
  // Server encoder (ST_AsMVT), no filter (the OGC tile too): the pixel levels first, then the candidates.
  mvt: (sql) => sqlTileMvt(sql, ds, address, where(sql), CAP, BUDGET, false),
  // Beyond the pixel levels (z > 22): the candidates, the first by hash when they are more than the cap.
  'mvt-deep': (sql) =>
    sqlTileMvt(sql, ds, { z: 23, x: 4_194_304, y: 2_796_202 }, where(sql), CAP, BUDGET, false),
  'mvt-source': (sql) =>
    sqlTileMvt(sql, ds, address, where(sql), CAP, BUDGET, false, [['kind'], ['size', 'height']]),
  // With filters: the candidates first, then the pixel levels.
  'mvt-filters': (sql) => sqlTileMvt(sql, ds, address, where(sql, legacyFilters()), CAP, BUDGET, true),
  'mvt-cql2': (sql) => sqlTileMvt(sql, ds, address, where(sql, withCql2(sql)), CAP, BUDGET, true),
  // Embedded encoder (vt-pbf in JS): rows in tile pixels.
  rows: (sql) => sqlTileRows(sql, ds, address, where(sql), CAP, false),
  'rows-filters': (sql) => sqlTileRows(sql, ds, address, where(sql, legacyFilters()), CAP, true),
  'rows-source': (sql) =>
    sqlTileRows(sql, ds, address, where(sql), CAP, false, [['kind'], ['size', 'height']]),
  // The GeoJSON read: one keyset statement of `featureChunks` (after, limit, id span, table oid).
  'geojson-chunk': (sql) =>
    featuresQuery(sql, ds, noFilters, { offset: 0, after: 4000, limit: 2000 }, 54_000, 16_384),
  'geojson-source': (sql) =>
    featuresQuery(
      sql,
      ds,
      legacyFilters(),
      parseGeojsonOptions({ _source: 'kind,size.height', limit: 100 }),
      undefined,
      16_384,
    ),
  // `stats` reads the whole matched set in one statement (window aggregates), then pages.
  'geojson-stats': (sql) =>
    featuresQuery(sql, ds, withCql2(sql), parseGeojsonOptions({ stats: 'height', limit: 10, offset: 20 })),
};

describe('tile SQL snapshots', () => {
  for (const [shape, build] of Object.entries(shapes)) {
    it(shape, async () => {
      const text = render(build);
      expect(render(build)).toBe(text);
      await expect(text).toMatchFileSnapshot(`./__snapshots__/tile-sql/${shape}.sql`);
    });
  }
});
