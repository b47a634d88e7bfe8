import { updateInitialView } from '#lib/configure/operations.ts';
import { changeBody } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** Sets the map's initial center and zoom (`msv.view`). */
export const handler = endpoint(
  { auth: 'admin', schema: { body: changeBody }, responses: ok(changeAnswer) },
  ({ body, db }) => updateInitialView(db, body),
);
