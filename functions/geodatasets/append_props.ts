import { runWrite } from '#lib/geodatasets/write/runWrite.ts';
import { writePath, writeQuery } from '#lib/geodatasets/write/writeParams.ts';
import { parseGeojsonBody } from '#lib/geodatasets/write/writeRequest.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { writeAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

/**
 * A write whose body is the GeoJSON file, `startProp,endProp` the path's last segment and the other
 * options the query: this handler's `append`, and `recreate` for POST
 * /api/geodatasets/recreate/:name/:start_end_prop (recreate_name_props.ts). append.ts's
 * `geojsonFileWrite` without its request-body description (these routes' OpenAPI entries have none).
 */
export function geojsonFileWriteProps(action: 'append' | 'recreate') {
  return endpoint(
    {
      auth: 'admin',
      body: 'raw',
      schema: { path: writePath, query: writeQuery },
      responses: ok(writeAnswer),
    },
    async ({ rawBody, path, query, db }) =>
      runWrite(db, parseGeojsonBody(action, rawBody ?? '', path, query)),
  );
}

/** POST /api/geodatasets/append/:name/:start_end_prop — startProp,endProp from the URL. */
export const handler = geojsonFileWriteProps('append');
