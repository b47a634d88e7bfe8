import { runWrite } from '#lib/geodatasets/write/runWrite.ts';
import { writePath, writeQuery } from '#lib/geodatasets/write/writeParams.ts';
import { parseGeojsonBody } from '#lib/geodatasets/write/writeRequest.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { writeAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

/** POST /api/geodatasets/recreate/:name/:start_end_prop — startProp,endProp from the URL. */
export const handler = endpoint(
  { auth: 'admin', body: 'raw', schema: { path: writePath, query: writeQuery }, responses: ok(writeAnswer) },
  async ({ rawBody, path, query, db }) =>
    runWrite(db, parseGeojsonBody('recreate', rawBody ?? '', path, query)),
);
