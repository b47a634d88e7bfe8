import { destroy } from '#lib/configure/operations.ts';
import { missionOnly } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { destroyAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** Removes a mission with all its versions (discouraged). */
export const handler = endpoint(
  { auth: 'admin', schema: { body: missionOnly }, responses: ok(destroyAnswer) },
  ({ body, db }) => destroy(db, body),
);
