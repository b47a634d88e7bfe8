import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { type Geodataset, sqlTable } from '../catalog.ts';
import { type StatsField, sqlMeta, sqlRowsWithStats, sqlSourceProps, sqlWithMeta } from './featureProps.ts';
import { BATCH_ROWS, collectText } from './featuresText.ts';
import { pathList, type ReadFilters, sqlProps, sqlWhere, withReadErrors } from './filters.ts';
import { type GeojsonInput, isTrue } from './readParams.ts';

/** The geojson-only options of `GET /get`: paging, `_source`, `stats`. */
export interface GeojsonOptions {
  /** Clamped to [1, 10000]; undefined = every matching feature. */
  limit?: number;
  offset: number;
  /** Keyset paging: only features whose id is above this one (`after`, the next link's key). */
  after?: number;
  /** `_source` paths; undefined = all properties. */
  source?: string[][];
  /** `stats` fields: the name as requested and its path. */
  stats?: StatsField[];
}

export const MAX_LIMIT = 10000;

/**
 * `limit` (clamped to 1..10000), `offset`, `after`, `limited` (the first three), `_source` and `stats`
 * (comma-separated dot paths, or repeated), from the declared parameters (types and ranges checked).
 */
export function parseGeojsonOptions(input: GeojsonInput): GeojsonOptions {
  const out: GeojsonOptions = { offset: input.offset ?? 0 };
  if (input.after !== undefined && input.after !== null) out.after = input.after;
  if (input.limit !== undefined && input.limit !== null)
    out.limit = Math.min(MAX_LIMIT, Math.max(1, input.limit));
  if (isTrue(input.limited)) out.limit = Math.min(out.limit ?? 3, 3);
  const source = pathList('_source', [input._source, input['_source[]']]);
  if (source) out.source = source;
  const stats = pathList('stats', [input.stats, input['stats[]']]);
  if (stats) out.stats = stats.map((path) => ({ name: path.join('.'), path }));
  return out;
}

/**
 * The features of a read, one row per feature with its GeoJSON text as `f`, assembled entirely in the
 * database: ordered by id, `properties._.idx` = id, `_source` projection, per-group `stats` over the whole
 * matched set (before paging), then `limit`/`offset`. The texts are passed through to the client
 * untouched; featuresText.ts reads them with a cursor.
 */
export function featuresQuery(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
  upTo?: number,
  tableOid?: number,
): Fragment {
  const table = sqlTable(sql, ds);
  const props = opts.source ? sqlSourceProps(sql, ds, opts.source, 't') : sqlProps(sql, ds, 't');
  const meta = sqlMeta(sql, !!opts.stats?.length);
  const keys = [
    opts.after !== undefined ? sql`t.id > ${opts.after}::bigint` : undefined,
    upTo !== undefined ? sql`t.id <= ${upTo}::bigint` : undefined,
    tableOid !== undefined ? sql`t.tableoid = ${tableOid}::oid` : undefined,
  ];
  const and = (parts: (Fragment | undefined)[], start: Fragment) =>
    parts.reduce<Fragment>((a, c) => (c ? sql`${a} and ${c}` : a), start);
  const narrow = and(
    [
      // The one feature `id` asks for is answered even when its group keeps another (as sqlWhere does).
      f.noDuplicates && f.id === undefined ? sql`t.id = t.keep` : undefined,
      f.id !== undefined ? sql`t.id = ${f.id}::bigint` : undefined,
      ...keys,
    ],
    sql`true`,
  );
  const from = opts.stats?.length
    ? sql`(${sqlRowsWithStats(sql, ds, f, opts.stats)}) t where ${narrow}`
    : sql`${table} t where ${and(keys, sqlWhere(sql, ds, f, 't'))}`;
  const q = sqlIdentifier(sql, 'q');
  return sql`
    select q.id, '{"type":"Feature","geometry":' || ST_AsGeoJSON(q.geom) || ',"properties":'
      || ${sqlWithMeta(sql, sql`q.p`, sql`q.meta`)} || '}' as f
    from (
      select t.id, t.geom, ${props} as p, ${meta} as meta
      from ${from}
      order by t.id
      limit ${opts.limit ?? null} offset ${opts.offset}
    ) ${q}
    order by q.id`;
}

/**
 * Whether `featureChunks` reads `f` in short keyset statements, each over an id span (not one statement over
 * the whole matched set: `stats`, `id`, an `offset`, or `noDuplicates`, whose groups span the layer).
 */
export function readsInSpans(f: ReadFilters, opts: GeojsonOptions): boolean {
  return !opts.stats?.length && f.id === undefined && !opts.offset && !f.noDuplicates;
}

/** Features read by one statement of a keyset-paged read (`featureChunks`). */
export const CHUNK_ROWS = 2000;
/** The id range the first statement of a keyset-paged read looks at, matched or not. */
export const CHUNK_SPAN = 50_000;
/** A short statement under this many ms widens the next one's id range (a sparse filter); over SLOW_MS narrows it. */
const FAST_MS = 250;
const SLOW_MS = 1000;

/** A statement's features: their joined texts and the highest id among them. */
export interface FeatureChunk {
  text: string;
  rows: number;
  lastId?: number;
}

/**
 * The features of a read in id order, as chunks, each chunk its own short statement (no cursor held
 * across them): `id > after and id <= after + span`, at most CHUNK_ROWS rows; the next chunk goes on
 * after the last id read (a full chunk) or after the range (a short one), until the layer's highest id.
 * The span starts at CHUNK_SPAN ids of the primary key and adapts to the statements' time (wider after a
 * fast short one, a sparse filter; narrower after a slow one), so no statement nears the statement
 * timeout whatever the layer's size and the filters' selectivity, and a selective filter still takes few
 * statements. The function holds one chunk at a time. `offset` is applied by the first statement only
 * (the rest continue by key); `id` is one statement. With `stats` (window aggregates over the whole
 * matched set) the read is one statement read with a cursor. Every statement reads only the table the
 * read began with (its oid): a recreate that swaps the table in between makes the read a 503.
 */
export async function* featureChunks(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
  sizes: { rows: number; span: number } = { rows: CHUNK_ROWS, span: CHUNK_SPAN },
): AsyncGenerator<FeatureChunk> {
  if (opts.stats?.length || f.id !== undefined) {
    const batches = featuresQuery(sql, ds, f, opts).cursor(BATCH_ROWS)[Symbol.asyncIterator]();
    let done = false;
    try {
      for (;;) {
        const next = await withReadErrors(() => batches.next());
        if (next.done) break;
        yield chunkOf(next.value);
      }
      done = true;
    } finally {
      if (!done) await batches.return?.();
    }
    return;
  }
  const table = sqlTable(sql, ds);
  // The table read (a recreate swaps in another under the same name between two statements): its rows
  // only, and a 503 if it was replaced before the end, never an answer mixing two generations.
  const tableOid = async () =>
    Number((await sql`select to_regclass(${ds.table})::oid::bigint as oid`)[0]?.oid ?? 0);
  const [top] = await sql`select max(id) as max, to_regclass(${ds.table})::oid::bigint as oid from ${table}`;
  const maxId = top?.max == null ? undefined : Number(top.max);
  if (maxId === undefined) return;
  const oid = Number(top.oid);
  let after = opts.after ?? 0;
  let offset = opts.offset;
  let left = opts.limit ?? Number.POSITIVE_INFINITY;
  const widest = f.maxSpan ?? Number.POSITIVE_INFINITY;
  let span = Math.min(sizes.span, widest);
  while (left > 0 && after < maxId) {
    const want = Math.min(sizes.rows, left);
    // With an offset, the first statement skips it over the whole key range (offset paging's own cost).
    const upTo = offset > 0 ? undefined : Math.min(after + span, maxId);
    const started = performance.now();
    const rows = await withReadErrors(() =>
      featuresQuery(sql, ds, f, { ...opts, after, offset, limit: want }, upTo, oid),
    );
    const ms = performance.now() - started;
    offset = 0;
    if (rows.length > 0) yield chunkOf(rows);
    left -= rows.length;
    if (ms > SLOW_MS) span = Math.max(sizes.rows, Math.floor(span / 2));
    if (rows.length === want) after = Number(rows[rows.length - 1].id);
    else if (upTo === undefined) break;
    else {
      after = upTo;
      if (ms < FAST_MS) span = Math.min(span * 4, widest);
    }
  }
  if ((await tableOid()) !== oid) {
    throw new HttpError(503, `Geodataset '${ds.name}' was replaced while it was read; read it again.`);
  }
}

function chunkOf(rows: readonly Record<string, unknown>[]): FeatureChunk {
  return {
    text: rows.map((r) => r.f as string).join(','),
    rows: rows.length,
    lastId: rows.length ? Number(rows[rows.length - 1].id) : undefined,
  };
}

/** Where a read ended: the features it answered and the highest id among them. */
export interface ReadEnd {
  rows: number;
  lastId?: number;
}

/** The JSON text around a read's features; `after` may depend on where the read ended. */
export interface ReadWrap {
  before: string;
  after: string | ((end: ReadEnd) => string);
}

/** The features of a read as JSON text pieces `<before>[f1,f2,...]<after>`, read by `featureChunks`. */
export async function* streamFeaturesJson(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
  wrap: ReadWrap,
): AsyncGenerator<string> {
  yield `${wrap.before}[`;
  const end: ReadEnd = { rows: 0 };
  for await (const chunk of featureChunks(sql, ds, f, opts)) {
    yield end.rows === 0 ? chunk.text : `,${chunk.text}`;
    end.rows += chunk.rows;
    end.lastId = chunk.lastId ?? end.lastId;
  }
  yield `]${typeof wrap.after === 'string' ? wrap.after : wrap.after(end)}`;
}

/**
 * The bare FeatureCollection text of `GET /get` with `type=geojson`, as pieces. A keyset page (`after`
 * given, `nextHref` known) ends with a `links` member: the `next` page's URL (`after` = the page's last
 * id) when the page holds `limit` features, else none. Without `after` the answer is MMGIS's, unchanged
 * (docs/geodatasets-read.md, "Paging").
 */
export function streamFeatureCollection(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
  nextHref?: (after: number) => string,
): AsyncIterable<string> {
  return streamFeaturesJson(sql, ds, f, opts, {
    before: '{"type":"FeatureCollection","features":',
    after: ({ rows, lastId }) => {
      if (!nextHref || opts.after === undefined) return '}';
      if (opts.limit === undefined || rows < opts.limit || lastId === undefined) return ',"links":[]}';
      const next = { href: nextHref(lastId), rel: 'next', type: 'application/geo+json', title: 'Next page' };
      return `,"links":${JSON.stringify([next])}}`;
    },
  });
}

/** The whole FeatureCollection text (lib tests, in-process benches). */
export function readFeatureCollection(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
): Promise<string> {
  return collectText(streamFeatureCollection(sql, ds, f, opts));
}
