import { createHash } from 'node:crypto';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { parseReadFilters, type ReadFilters } from '#lib/geodatasets/read/filterParams.ts';
import { parseGeojsonOptions } from '#lib/geodatasets/read/geojson.ts';

/**
 * The reuse key of an export (docs/geodatasets-read.md, "Export jobs", "Reuse"): the layer's id, version
 * and table with the read **as parsed**, not as written, so the same read written differently shares one
 * export: parameters in any order, by path or query, `1`/`true`, `noDuplicates=false` or absent, a time
 * in any ISO 8601 spelling of the same instant, `filters` entries and `in` lists in any order, `_source`
 * and `stats` fields in any order (the answer's objects are jsonb, whose key order is its own), a cql2-text
 * filter in any spacing or case of its keywords, or the same filter as cql2-json (one AST, lib/cql2).
 * `cql2` is the request's CQL2 filter as its parser left it (`{ast, crs}` of lib/cql2/filter.ts,
 * parsed by the handler: lib/uploads does not import lib/cql2). Pure; the parsers' 400s name the parameter
 * as the read's do.
 */
export function exportReadKey(
  ds: Geodataset,
  params: Record<string, unknown>,
  cql2?: { ast: unknown; crs: string },
): string {
  const read = {
    filters: normalFilters(parseReadFilters(params as never)),
    options: normalOptions(params),
    cql2: cql2 && { ast: cql2.ast, crs: cql2.crs },
  };
  return createHash('sha256')
    .update(JSON.stringify([ds.id, ds.version, ds.table, read]))
    .digest('hex');
}

const byText = (a: unknown, b: unknown) => {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

function normalFilters(f: ReadFilters): unknown {
  const time = f.time && {
    startPath: f.time.startPath,
    endPath: f.time.endPath,
    // An instant once parsed (the default format); a custom format's text as given.
    start: f.time.start ?? f.time.starttime,
    end: f.time.end ?? f.time.endtime,
    format: f.time.format,
  };
  const filters = f.filters
    .map((p) => ({ ...p, values: p.op === 'in' ? [...p.values].sort(byText) : p.values }))
    .sort(byText);
  return { ...f, time, filters };
}

function normalOptions(params: Record<string, unknown>): unknown {
  const o = parseGeojsonOptions(params as never);
  return {
    offset: o.offset,
    source: o.source?.map((p) => p.join('.')).sort(),
    stats: o.stats?.map((s) => s.name).sort(),
  };
}
