import { addMission } from '#lib/configure/operations.ts';
import { missionOnly } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';
import { respond } from '#lib/http/response.ts';

/** Creates a mission (discouraged; see docs/configure.md). */
export const handler = endpoint(
  { auth: 'admin', schema: { body: missionOnly }, responses: { 201: { schema: changeAnswer } } },
  async ({ body, db }) => respond(201, await addMission(db, body)),
);
