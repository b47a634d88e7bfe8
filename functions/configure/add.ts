import type { Config } from '#lib/configure/layerTree.ts';
import { addMission } from '#lib/configure/operations.ts';
import { configObject, MAX_CONFIG_TEXT, mission } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';
import { respond } from '#lib/http/response.ts';

const body = {
  type: 'object',
  required: ['mission'],
  properties: { mission, config: jsonOr(configObject, MAX_CONFIG_TEXT) },
} as const;

/** Creates a mission from `config` or the template (discouraged; see docs/configure.md). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 201: { schema: changeAnswer } } },
  async ({ body, db }) => {
    const config =
      body.config === undefined ? undefined : jsonField<Config>(body.config, 'config', configObject);
    return respond(201, await addMission(db, { mission: body.mission, config }));
  },
);
