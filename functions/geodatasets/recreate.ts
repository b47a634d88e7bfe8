import { runWrite } from '#lib/geodatasets/write/writeHandlers.ts';
import { parseRecreateBody } from '#lib/geodatasets/write/writeRequest.ts';
import { endpoint } from '#lib/http/endpoint.ts';

/** POST /api/geodatasets/recreate `{name, geojson, startProp, endProp, groupIdProp, featureIdProp, filename, action}`. */
export const handler = endpoint({ auth: 'admin', body: 'raw' }, async ({ rawBody, db }) =>
  runWrite(db, parseRecreateBody(rawBody ?? '')),
);
