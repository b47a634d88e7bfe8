import { runWrite } from '#lib/geodatasets/write/runWrite.ts';
import { writePath, writeQuery } from '#lib/geodatasets/write/writeParams.ts';
import { parseGeojsonBody } from '#lib/geodatasets/write/writeRequest.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { geojsonBody, writeAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

/**
 * A write whose body is the GeoJSON file and whose options are the query
 * (`?start_prop&end_prop&group_id_prop&feature_id_prop&filename`): this handler's `append`, and
 * `recreate` for POST /api/geodatasets/recreate/:name (recreate_name.ts).
 */
export function geojsonFileWrite(action: 'append' | 'recreate') {
  return endpoint(
    {
      auth: 'admin',
      body: 'raw',
      rawBodyDoc: geojsonBody,
      schema: { path: writePath, query: writeQuery },
      responses: ok(writeAnswer),
    },
    async ({ rawBody, path, query, db }) =>
      runWrite(db, parseGeojsonBody(action, rawBody ?? '', path, query)),
  );
}

/** POST /api/geodatasets/append/:name?start_prop&end_prop&group_id_prop&feature_id_prop&filename. */
export const handler = geojsonFileWrite('append');
