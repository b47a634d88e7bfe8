import { upsert } from '#lib/configure/operations.ts';
import {
  configObject,
  forceClientUpdate,
  id,
  MAX_CONFIG_TEXT,
  mission,
  version,
} from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** `config` (a whole configuration, or its JSON text) unless `version` (a rollback, which wins) is given. */
const body = {
  type: 'object',
  required: ['mission'],
  properties: {
    mission,
    config: jsonOr(configObject, MAX_CONFIG_TEXT),
    version: { ...version, type: ['integer', 'null'] },
    forceClientUpdate,
    id,
  },
  if: { required: ['version'], properties: { version: { type: 'integer' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
  then: {},
  else: { required: ['config'] },
} as const;

/** Creates or replaces a mission's configuration (a new version); `version` rolls back. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(changeAnswer) },
  ({ body, db }) =>
    upsert(db, {
      ...body,
      config: body.config === undefined ? undefined : jsonField(body.config, 'config', configObject),
    }),
);
