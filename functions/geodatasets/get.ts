import { parseFilterParams } from '#lib/cql2/filter.ts';
import { badRequest } from '#lib/errors.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { readWithCql2 } from '#lib/geodatasets/read/cql2/readFilter.ts';
import { parseReadFilters, resolveReadFilters } from '#lib/geodatasets/read/filters.ts';
import { parseGeojsonOptions, readsInSpans, streamFeatureCollection } from '#lib/geodatasets/read/geojson.ts';
import { getBody, getPath, getQuery } from '#lib/geodatasets/read/getParams.ts';
import { parseTileAddress, parseTileSource } from '#lib/geodatasets/tiles/tileParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { exportAnswer, exportRefusedAnswer, streamedJson } from '#lib/http/largeResponse.ts';
import {
  exportRefused,
  exportStarted,
  featureCollection,
  largeAnswer,
} from '#lib/http/openapi/shapes/geodatasets.ts';
import { tileResponse } from '#lib/http/tileResponse.ts';
import { withQuery } from '#lib/ogc/request.ts';
import { publicBaseUrl } from '#lib/publicUrl.ts';
import { uploadBucket } from '#lib/uploads/bucket.ts';
import { exportAboveFeatures, exportInput } from '#lib/uploads/exportRule.ts';

/** The end of the 303's message: how to read the layer in pages by key (docs/geodatasets-read.md, "Paging"). */
const PAGING_HINT =
  "read it in pages by key with 'limit' and 'after' (each page's links name the next one; 'offset' rereads every skipped feature)";

/** The declared parameters as given (query over body), but `after` and `offset`: the next link's query. */
function keptParams(given: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(given)) {
    if (k === 'after' || k === 'offset' || v === undefined || v === null) continue;
    const key = k.endsWith('[]') ? k.slice(0, -2) : k;
    out[key] = Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/**
 * GET /api/geodatasets/get[/{layer}] (and POST /api/geodatasets/get with the same parameters in a JSON
 * or form body; the query wins): GeoJSON text built by the database, streamed (inline, or 303 to S3
 * above the inline limit), or a vector tile (`type=mvt`). Every parameter is declared in
 * lib/geodatasets/read/getParams.ts.
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: getQuery, body: getBody, path: getPath },
    responses: {
      200: {
        description: 'GeoJSON (`type=geojson`, the default) or a vector tile (`type=mvt`).',
        content: {
          'application/json': featureCollection,
          'application/x-protobuf': { type: 'string', contentMediaType: 'application/x-protobuf' },
        },
      },
      202: exportStarted,
      204: { description: 'An empty tile (with ETag and Cache-Control).' },
      303: largeAnswer,
      304: { description: 'The tile has not changed (If-None-Match).' },
      429: exportRefused,
    },
  },
  async ({ query, body, path, db, headers, event, principal }) => {
    const given = { ...body, ...query };
    const params = { ...given };
    const layer = path.layer || params.layer;
    if (!layer) throw badRequest(`Missing required query parameter 'layer'.`);
    // A cql2-json object in a body: as text, so the tile ETag (and any cache key) tells filters apart.
    if (params.filter !== null && typeof params.filter === 'object') {
      params['filter-lang'] ??= 'cql2-json';
      params.filter = JSON.stringify(params.filter);
    }
    const filters = parseReadFilters(params);
    const cql2 = parseFilterParams(params);
    // Without `type`: GeoJSON, as MMGIS answers (docs/geodatasets-read.md).
    if (params.type === 'mvt') {
      const address = parseTileAddress(params);
      const source = parseTileSource(params);
      const ds = await requireDataset(db.sql, layer);
      return tileResponse({ db, ds, input: params, address, filters, cql2, source, headers });
    }
    const options = parseGeojsonOptions(params);
    const ds = await requireDataset(db.sql, layer);
    // A whole read of a layer too big for one request: an export job the caller follows
    // (docs/geodatasets-read.md, "Export jobs"). Its filter passes the read's bounds first (a costly
    // CQL2 filter is a 400 here, before any job), and a new export must fit the caps.
    const whole = options.limit === undefined && options.after === undefined && filters.id === undefined;
    if (whole && ds.numFeatures > exportAboveFeatures() && uploadBucket()) {
      const { findOrStartExport } = await import('#lib/uploads/export.ts');
      const caller = principal.user
        ? `user:${principal.user.id}`
        : `address:${event.requestContext?.identity?.sourceIp ?? 'unknown'}`;
      const input = exportInput(ds, { ...params, layer: undefined, type: undefined }, { cql2, caller });
      // The job's read, so the same bound (docs/cql2.md, "Cost").
      const start = await readWithCql2(
        db.sql,
        ds,
        await resolveReadFilters(db.sql, filters),
        cql2,
        () => findOrStartExport(db, input),
        { chunked: readsInSpans(filters, options) },
      );
      if (start.refused) return exportRefusedAnswer(start.refused);
      const jobUrl = `${publicBaseUrl(event)}${event.path.replace(/\/geodatasets\/get(\/.*)?$/, '')}/geodatasets/jobs/${start.job.id}`;
      return exportAnswer(start.job, jobUrl, ds.numFeatures, exportAboveFeatures());
    }
    // The next page's link: this request's own URL (the stage prefix and /api or /API as the caller sent it).
    const self = `${publicBaseUrl(event)}${event.path}`;
    const next = (after: number) => withQuery(self, { ...keptParams(given), after });
    return readWithCql2(
      db.sql,
      ds,
      await resolveReadFilters(db.sql, filters),
      cql2,
      (resolved) => streamedJson(streamFeatureCollection(db.sql, ds, resolved, options, next), PAGING_HINT),
      { chunked: readsInSpans(filters, options) },
    );
  },
);
