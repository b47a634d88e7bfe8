import { parseJsonish } from '#lib/configure/names.ts';
import { validateWithDatasets } from '#lib/configure/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { validationAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = { type: 'object' } as const;

/** Validates a configuration and stores nothing: `valid` with errors and warnings (HTTP 200 either way). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(validationAnswer) },
  async ({ body, db }) => {
    const result = await validateWithDatasets(db.sql, parseJsonish(body.config, 'config'));
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
