import { endpoint } from '#lib/http/endpoint.ts';
import { wktText } from '#lib/http/openapi/shapes/misc.ts';
import { plainText } from '#lib/http/response.ts';
import { assertProjString, projToWkt } from '#lib/rasters/projWkt.ts';

const query = { type: 'object', properties: { proj4: { type: 'string', maxLength: 2000 } } } as const;

/**
 * GET /api/utils/proj42wkt?proj4=<PROJ string> → its OGC WKT as text, the established server's answer
 * (the map client writes it as the `.prj` of a shapefile export; docs/utils.md).
 */
export const handler = endpoint(
  { auth: 'viewer', body: 'raw', schema: { query }, responses: { 200: wktText } },
  async ({ query }) => plainText(await projToWkt(assertProjString(query.proj4))),
);
