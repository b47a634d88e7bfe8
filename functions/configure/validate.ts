import { configBounds, MAX_CONFIG_TEXT } from '#lib/configure/requests.ts';
import { validateWithDatasets } from '#lib/configure/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { validationAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  properties: { config: jsonOr(configBounds, MAX_CONFIG_TEXT) },
} as const;

/**
 * Validates a configuration and stores nothing: `valid` with errors and warnings (HTTP 200 either way; a
 * missing or non-object config is invalid). JSON text that does not parse, or a config past its bounds: 400.
 */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(validationAnswer) },
  async ({ body, db }) => {
    const result = await validateWithDatasets(db.sql, jsonField(body.config, 'config', configBounds));
    return result.valid
      ? { status: 'success', valid: true, warnings: result.warnings }
      : {
          status: 'failure',
          message: `The configuration is not valid: ${result.errors[0].reason}`,
          valid: false,
          errors: result.errors,
          warnings: result.warnings,
        };
  },
);
