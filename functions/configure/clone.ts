import { cloneMission } from '#lib/configure/operations.ts';
import { cloneBody } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { cloneAnswer } from '#lib/http/openapi/shapes/configure.ts';
import { respond } from '#lib/http/response.ts';

/** Copies a mission's latest configuration to a new mission (discouraged). */
export const handler = endpoint(
  { auth: 'admin', schema: { body: cloneBody }, responses: { 201: { schema: cloneAnswer } } },
  async ({ body, db }) => respond(201, await cloneMission(db, body)),
);
