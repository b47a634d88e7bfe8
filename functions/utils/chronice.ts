import { endpoint } from '#lib/http/endpoint.ts';
import { spiceFailure } from '#lib/http/openapi/shapes/misc.ts';
import { respond } from '#lib/http/response.ts';
import { spiceUnavailable } from '#lib/rasters/spice.ts';

/**
 * POST /api/utils/chronice (UTC ↔ a spacecraft's local solar time): needs SPICE kernels this service does
 * not have; always 501 with the established failure shape (docs/utils.md).
 */
export const handler = endpoint({ auth: 'viewer', body: 'raw', responses: { 501: spiceFailure } }, async () =>
  respond(501, spiceUnavailable('Converting between UTC and a mission time (chronice)')),
);
