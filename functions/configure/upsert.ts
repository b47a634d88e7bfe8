import { upsert } from '#lib/configure/operations.ts';
import { changeBody } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** Creates or replaces a mission's configuration (a new version); `version` rolls back. */
export const handler = endpoint(
  { auth: 'admin', schema: { body: changeBody }, responses: ok(changeAnswer) },
  ({ body, db }) => upsert(db, body),
);
