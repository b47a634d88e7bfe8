import { runWrite } from '#lib/geodatasets/write/runWrite.ts';
import { parseRecreateBody } from '#lib/geodatasets/write/writeRequest.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { recreateBody, writeAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

/** POST /api/geodatasets/recreate `{name, geojson, startProp, endProp, groupIdProp, featureIdProp, filename, action}`. */
export const handler = endpoint(
  { auth: 'admin', body: 'raw', rawBodyDoc: recreateBody, responses: ok(writeAnswer) },
  async ({ rawBody, db }) => runWrite(db, parseRecreateBody(rawBody ?? '')),
);
