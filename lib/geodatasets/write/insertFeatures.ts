import type { TxSql } from '#lib/db/index.ts';
import { badRequest, HttpError } from '#lib/errors.ts';
import { assertDatasetName, safeTable } from '../catalog.ts';
import type { PropertyTypeCounts } from '../extents.ts';
import type { StatsAccumulator } from '../fieldStats.ts';
import { CopyStream } from './copyStream.ts';
import { type Derive, deriveColumns, splitProps } from './derived.ts';
import { featureSource } from './lazyGeojson.ts';
import { validateFeature } from './validateGeometry.ts';
import type { WriteOptions, WriteTuning } from './write.ts';

/**
 * The one bulk-insert path of geodataset writes: features validated, derived and inserted in batches,
 * field statistics accumulated in the same pass (used by recreate, append and the upload ingest).
 */
const DEFAULT_BATCH = 4000;

/**
 * Features arriving one at a time from a streaming parser (lib/uploads: an uploaded file read from S3).
 * Passed as `geojson` to recreate/append, they go through the same validation, derived columns, stats and
 * transaction as a request body; the parser's errors roll the write back like any other.
 */
export type StreamedFeatures = AsyncIterable<unknown>;

/**
 * A 400: the database refused a feature's values. `featureIndex` is the feature (or the first of the
 * batch it could not tell apart); the answer's body is the message alone, and an upload job records the
 * index as where its file failed (lib/uploads/ingest.ts).
 */
export class RefusedByDatabase extends HttpError {
  constructor(
    message: string,
    public readonly featureIndex: number,
  ) {
    super(400, message);
  }
}

export function isStreamedFeatures(x: unknown): x is StreamedFeatures {
  return typeof (x as StreamedFeatures)?.[Symbol.asyncIterator] === 'function';
}

/** The features of `geojson`: a stream as is, anything else through `featureSource`. */
export function sourceOf(geojson: unknown): Iterable<unknown> | StreamedFeatures {
  return isStreamedFeatures(geojson) ? geojson : featureSource(geojson);
}

export function optionalProp(v: unknown, field: string): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw badRequest(`'${field}' must be a string of property names.`);
  if (v.length > 1000) throw badRequest(`'${field}' is longer than 1000 characters.`);
  return v;
}

/** Checked copies of the options (strings or null), 400 naming the field otherwise. */
export function normalizeOptions(opts: WriteOptions): Required<WriteOptions> {
  const filename = optionalProp(opts.filename, 'filename');
  return {
    name: assertDatasetName(opts.name, 'name'),
    startProp: optionalProp(opts.startProp, 'startProp'),
    endProp: optionalProp(opts.endProp, 'endProp'),
    groupIdProp: optionalProp(opts.groupIdProp, 'groupIdProp'),
    featureIdProp: optionalProp(opts.featureIdProp, 'featureIdProp'),
    filename,
  };
}

export function deriveOf(o: Required<WriteOptions>): Derive {
  return {
    start: o.startProp,
    end: o.endProp,
    group: splitProps(o.groupIdProp),
    feature: splitProps(o.featureIdProp),
  };
}

/**
 * One INSERT of a batch: rows are one JSON parameter read by `json_to_recordset`. Points come as x/y(/z)
 * numbers (ST_MakePoint is much cheaper than parsing GeoJSON); other geometries as GeoJSON.
 */
export function insertSql(table: string, propertiesType: 'json' | 'jsonb'): string {
  const t = safeTable(table);
  // jsonb tables read the batch as jsonb (properties parsed once, not twice); json tables keep the
  // properties' text as sent.
  const j = propertiesType === 'json' ? 'json' : 'jsonb';
  return `insert into ${t} (geom, properties, start_time, end_time, group_id, feature_id)
    select case when r.x is null then ST_SetSRID(ST_GeomFromGeoJSON(r.g::text), 4326)
                when r.z is null then ST_SetSRID(ST_MakePoint(r.x, r.y), 4326)
                else ST_SetSRID(ST_MakePoint(r.x, r.y, r.z), 4326) end,
           coalesce(r.p, '{}'), r.s, r.e, r.gi, r.fi
    from ${j}_to_recordset($1::${j})
      as r(x float8, y float8, z float8, g ${j}, p ${j}, s timestamptz, e timestamptz, gi text, fi text)`;
}

export function toRow(geometry: Record<string, unknown>, properties: Record<string, unknown>) {
  if (geometry.type === 'Point') {
    const c = geometry.coordinates as number[];
    return c.length > 2 ? { x: c[0], y: c[1], z: c[2], p: properties } : { x: c[0], y: c[1], p: properties };
  }
  return { g: geometry, p: properties };
}

/** `text` for a COPY text-format column: backslash, tab, newline and carriage return escaped. */
export function copyText(text: string): string {
  return text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]);
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

const COPY_NULL = '\\N';

/**
 * A row of `toRow` + `deriveColumns` as one line of COPY text (columns `COPY_COLUMNS`), when its geometry
 * is a point (EWKT from its numbers, which `validateFeature` checked finite); null for any other geometry
 * (inserted as GeoJSON).
 */
export function copyLine(row: Record<string, unknown>): string | null {
  if (row.x === undefined) return null;
  const geom =
    row.z === undefined
      ? `SRID=4326;POINT(${row.x} ${row.y})`
      : `SRID=4326;POINT Z (${row.x} ${row.y} ${row.z})`;
  const opt = (v: unknown) => (v === undefined || v === null ? COPY_NULL : copyText(String(v)));
  return `${geom}\t${copyText(JSON.stringify(row.p ?? {}))}\t${opt(row.s)}\t${opt(row.e)}\t${opt(row.gi)}\t${opt(row.fi)}\n`;
}

/** Database errors that mean "this input cannot be stored" (bad text in JSON, geometry PostGIS refuses). */
export function isInputError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return code.startsWith('22') || code === 'XX000';
}

/**
 * Features parsed between two turns of the event loop. A stream's features come as microtasks, which run
 * before any socket event: without a turn, the answer to the batch in the database (and, for COPY, the
 * server's go-ahead for its data) waited until a whole chunk of the file was parsed, and the database and
 * the parser took turns instead of working at once (docs/uploads.md, "Ingest at scale").
 */
const YIELD_EVERY = 256;
const ioTurn = () => new Promise<void>((ok) => setImmediate(ok));

/**
 * Points per COPY statement: one COPY streams up to this many rows as they are parsed (`CopyStream`),
 * short enough that no statement nears the statement timeout (about a second each on the scale bench's
 * machine), long enough that the statements' round trips cost nothing.
 */
const COPY_ROWS = 100_000;

/**
 * The error a write records when the database refused a statement's rows: a 400 naming the feature
 * (COPY names the line it refused, the last line of the error's context) or the batch's features; any
 * other error as it is. `first` is the index of the statement's first feature.
 */
function refusal(e: unknown, first: number, count: number): unknown {
  if (!isInputError(e)) return e;
  const line = /(?:^|\n)COPY \S+, line (\d+)/.exec(String((e as { where?: string })?.where ?? ''));
  if (line) {
    const at = first + Number(line[1]) - 1;
    return new RefusedByDatabase(`Feature ${at}: the database refused it (${(e as Error).message}).`, at);
  }
  return new RefusedByDatabase(
    `Features ${first}-${first + count - 1}: the database refused them (${(e as Error).message}).`,
    first,
  );
}

/**
 * Validates, derives and inserts every feature of `source` into `table`, in file order, accumulating
 * field statistics and the property type counts of the extents in the same pass. With `copy` (a PostGIS
 * server through postgres.js: `Db.copyIn`) runs of points stream through one COPY FROM STDIN of EWKT
 * lines each (`CopyStream`, at most `COPY_ROWS` or `tuning.batchSize` rows), the database's cheapest
 * load, storing rows while the next ones are parsed (docs/uploads.md, "Ingest at scale"); any other
 * feature goes in batches of `json_to_recordset` INSERTs, with the points that follow it until its batch
 * is sent, the next batch parsed while one is in the database. Throws 400 naming the feature index on
 * the first invalid feature.
 */
export async function insertFeatures(
  tx: TxSql,
  table: string,
  propertiesType: 'json' | 'jsonb',
  source: Iterable<unknown> | StreamedFeatures,
  derive: Derive,
  stats: StatsAccumulator | null,
  types: PropertyTypeCounts | null,
  tuning: WriteTuning,
  copy = false,
): Promise<number> {
  const size = Math.max(1, tuning.batchSize ?? DEFAULT_BATCH);
  const copyRows = Math.max(1, tuning.batchSize ?? COPY_ROWS);
  // Small first batches start the database early; sizes then double up to `size`.
  let limit = Math.min(size, 500);
  const text = insertSql(table, propertiesType);
  let batch: Record<string, unknown>[] = [];
  let index = 0;
  let batchNo = 0;
  let pending = null as Promise<void> | null; // (assigned in `cut`: no narrowing to null)
  let stream: CopyStream | null = null;
  let streamFirst = 0;

  const flush = (rows: Record<string, unknown>[], first: number): Promise<void> => {
    const n = ++batchNo;
    const p = tx
      .unsafe(text, [rows as any])
      .then(
        () => undefined,
        (e) => {
          throw refusal(e, first, rows.length);
        },
      )
      .then(() => tuning.afterBatch?.(n, tx));
    p.catch(() => {}); // observed when awaited; avoids an unhandled rejection if parsing fails first
    return p;
  };
  const cut = async () => {
    limit = Math.min(size, limit * 2);
    if (pending) await pending;
    pending = flush(batch, index - batch.length);
    batch = [];
  };
  /** Ends the COPY in progress: its rows are stored, then `afterBatch`. */
  const endStream = async () => {
    const s = stream;
    if (!s) return;
    stream = null;
    const n = ++batchNo;
    await s.end().catch((e) => {
      throw refusal(e, streamFirst, s.rows);
    });
    await tuning.afterBatch?.(n, tx);
  };
  /** Opens a COPY for the point just taken, after the INSERT before it (file order is id order). */
  const openStream = async () => {
    if (pending) await pending;
    pending = null;
    stream = await CopyStream.open(tx, table);
    streamFirst = index - 1;
  };
  /** Waits for the socket to take a chunk of the COPY `s`, then ends it when it is full. */
  const drain = async (s: CopyStream, wait: Promise<void>) => {
    await wait.catch((e) => {
      throw refusal(e, streamFirst, s.rows);
    });
    if (s.rows >= copyRows) await endStream();
  };
  /** One point's line into the COPY; a promise only when the write must wait. */
  const streamLine = (line: string): Promise<void> | undefined => {
    if (!stream) return openStream().then(() => streamLine(line));
    const wait = stream.write(line);
    if (wait) return drain(stream, wait);
    return stream.rows >= copyRows ? endStream() : undefined;
  };

  /** Validates and derives one feature, then writes it; a promise only when the write must wait. */
  const take = (raw: unknown): Promise<void> | undefined => {
    const { geometry, properties } = validateFeature(raw, index);
    stats?.add(properties);
    types?.add(properties);
    const row: Record<string, unknown> = toRow(geometry, properties);
    deriveColumns(properties, derive, row);
    index++;
    const line = copy ? copyLine(row) : null;
    // A point streams through the COPY unless a batch of other geometries is being gathered: then it
    // joins that batch until the batch is sent, so mixed geometries cost a statement per batch, never
    // one per feature (a COPY's end waits on the socket: about 40 ms each on this machine).
    if (line !== null && batch.length === 0) return streamLine(line);
    batch.push(row);
    if (stream) return endStream().then(() => (batch.length >= limit ? cut() : undefined));
    return batch.length >= limit ? cut() : undefined;
  };

  try {
    if (isStreamedFeatures(source)) {
      for await (const raw of source) {
        const wait = take(raw);
        if (wait) await wait;
        else if (index % YIELD_EVERY === 0) await ioTurn();
      }
    } else {
      for (const raw of source) {
        const wait = take(raw);
        if (wait) await wait;
        else if (index % YIELD_EVERY === 0) await ioTurn();
      }
    }
    await endStream();
    if (pending) await pending;
    pending = null;
    if (batch.length) await flush(batch, index - batch.length);
  } finally {
    // Let the statement in flight finish before the transaction rolls back.
    if (pending) await pending.catch(() => {});
    if (stream) await (stream as CopyStream).end().catch(() => {});
  }
  return index;
}
