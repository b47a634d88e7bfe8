import { endpoint } from '#lib/http/endpoint.ts';
import { spiceFailure } from '#lib/http/openapi/shapes/misc.ts';
import { respond } from '#lib/http/response.ts';
import { spiceUnavailable } from '#lib/rasters/spice.ts';

/**
 * POST /api/utils/ll2aerll (a ground point and time → azimuth, elevation and range of a target): needs
 * SPICE kernels this service does not have; always 501 with the established failure shape (docs/utils.md).
 */
export const handler = endpoint({ auth: 'viewer', body: 'raw', responses: { 501: spiceFailure } }, async () =>
  respond(501, spiceUnavailable('Converting a longitude/latitude to azimuth/elevation/range (ll2aerll)')),
);
