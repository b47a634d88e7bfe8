import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Principal } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { streamFeatureCollection } from '#lib/geodatasets/read/geojson.ts';
import { type GeojsonQuery, type GetInput, runRead } from '#lib/geodatasets/read/query.ts';
import type { HttpResponse } from '#lib/http/response.ts';
import { withQuery } from '#lib/ogc/request.ts';
import { publicBaseUrl } from '#lib/publicUrl.ts';
import { uploadBucket } from '#lib/uploads/bucket.ts';
import { exportAboveFeatures, exportInput } from '#lib/uploads/exportRule.ts';
import { exportAnswer, exportRefusedAnswer, streamedJson } from './largeResponse.ts';

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
 * The GeoJSON answer of `GET /api/geodatasets/get[/{layer}]` for a dataset already looked up and a request
 * already parsed (docs/geodatasets-read.md): the FeatureCollection text built by the database, streamed
 * inline or 303 to S3 above the inline limit; a whole read of a layer too big for one request is handed
 * to an export job the caller follows ("Export jobs").
 */
export async function geojsonResponse(read: {
  db: Db;
  ds: Geodataset;
  query: GeojsonQuery;
  /** The parameters as given (the next page's link keeps them) and as parsed (an export's key). */
  given: GetInput;
  params: GetInput;
  event: APIGatewayProxyEvent;
  principal: Principal;
}): Promise<HttpResponse> {
  const { db, ds, query, event } = read;
  const { filters, geojson: options } = query;
  // A whole read of a layer too big for one request: an export job the caller follows
  // (docs/geodatasets-read.md, "Export jobs"). Its filter passes the read's bounds first (a costly
  // CQL2 filter is a 400 here, before any job), and a new export must fit the caps.
  const whole = options.limit === undefined && options.after === undefined && filters.id === undefined;
  if (whole && ds.numFeatures > exportAboveFeatures() && uploadBucket()) {
    const { findOrStartExport } = await import('#lib/uploads/export.ts');
    const caller = read.principal.user
      ? `user:${read.principal.user.id}`
      : `address:${event.requestContext?.identity?.sourceIp ?? 'unknown'}`;
    const input = exportInput(
      ds,
      { ...read.params, layer: undefined, type: undefined },
      { cql2: query.cql2, caller },
    );
    // The job's read, so the same bound (docs/cql2.md, "Cost").
    const start = await runRead(db.sql, ds, query, () => findOrStartExport(db, input));
    if (start.refused) return exportRefusedAnswer(start.refused);
    const jobUrl = `${publicBaseUrl(event)}${event.path.replace(/\/geodatasets\/get(\/.*)?$/, '')}/geodatasets/jobs/${start.job.id}`;
    return exportAnswer(start.job, jobUrl, ds.numFeatures, exportAboveFeatures());
  }
  // The next page's link: this request's own URL (the stage prefix and /api or /API as the caller sent it).
  const self = `${publicBaseUrl(event)}${event.path}`;
  const next = (after: number) => withQuery(self, { ...keptParams(read.given), after });
  return runRead(db.sql, ds, query, (resolved) =>
    streamedJson(streamFeatureCollection(db.sql, ds, resolved, options, next), PAGING_HINT),
  );
}
