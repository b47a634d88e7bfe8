import { streamedJson } from '#lib/answers/largeResponse.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import {
  flagParam,
  layerParam,
  MAX_INTEGER,
  MAX_PATH_LENGTH,
  readFilterParams,
} from '#lib/geodatasets/read/readParams.ts';
import { readSearch } from '#lib/geodatasets/read/search.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { searchAnswer, streamedAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const body = {
  type: 'object',
  properties: {
    layer: layerParam,
    /** A property path. */
    key: { type: 'string', maxLength: MAX_PATH_LENGTH },
    /** Compared with the property (a `$`-separated list of at most 1000 for `in`). */
    value: { type: ['string', 'number', 'boolean'], maxLength: 50_000, minimum: -1e308, maximum: 1e308 },
    operator: { type: 'string', enum: ['=', '<', '>', 'in', 'like'] },
    type: { type: 'string', enum: ['string', 'number'] },
    last: flagParam,
    /** A feature id (the MMGIS client's form sends it as text). */
    id: {
      type: ['integer', 'string'],
      minimum: 0,
      maximum: MAX_INTEGER,
      maxLength: 16,
      pattern: '^\\d{1,16}$',
    },
    /** `first`, `last` or a signed count of features. */
    offset: {
      type: ['integer', 'string'],
      minimum: -1e9,
      maximum: 1e9,
      maxLength: 10,
      pattern: '^(first|last|-?\\d{1,9})$',
    },
    orderBy: { type: ['string', 'null'], maxLength: MAX_PATH_LENGTH },
    minx: readFilterParams.minx,
    miny: readFilterParams.miny,
    maxx: readFilterParams.maxx,
    maxy: readFilterParams.maxy,
  },
  required: ['layer'],
} as const;

/**
 * POST /api/geodatasets/search: features whose property `key` (a dot path) matches `value`, or the
 * MMGIS client's navigation forms (`last`, `id` + `offset` + `orderBy`); docs/geodatasets-read.md.
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { body },
    responses: streamedAnswer('The matching features, ordered by id.', searchAnswer),
  },
  async ({ body, db }) => {
    const ds = await requireDataset(db.sql, body.layer);
    return streamedJson(readSearch(db.sql, ds, body));
  },
);
