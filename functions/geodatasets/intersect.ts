import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { parseIntersectGeometry, readIntersect } from '#lib/geodatasets/read/intersect.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { streamedJson } from '#lib/http/largeResponse.ts';
import { intersectAnswer, streamedAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const body = {
  type: 'object',
  properties: {
    layer: { type: 'string' },
    intersect: { type: ['object', 'string'] },
    noDuplicates: { type: ['boolean', 'string'] },
    starttime: { type: 'string' },
    endtime: { type: 'string' },
    startProp: { type: 'string' },
    endProp: { type: 'string' },
    format: { type: 'string' },
  },
  required: ['layer', 'intersect'],
} as const;

/** POST /api/geodatasets/intersect: features intersecting a GeoJSON geometry, optionally in a time window. */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { body },
    responses: streamedAnswer('The intersecting features.', intersectAnswer),
  },
  async ({ body, db }) => {
    const geometry = parseIntersectGeometry(body.intersect);
    const { layer, intersect: _, ...rest } = body;
    const filters = parseReadFilters(rest);
    const ds = await requireDataset(db.sql, layer);
    return streamedJson(readIntersect(db.sql, ds, filters, geometry));
  },
);
