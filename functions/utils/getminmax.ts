import { endpoint } from '#lib/http/endpoint.ts';
import { minmaxAnswer, rasterFailures } from '#lib/http/openapi/shapes/misc.ts';
import { assertMayReadPath, withErrorFlag } from '#lib/rasters/access.ts';
import { getMinMax } from '#lib/rasters/minmax.ts';
import { missionStorage } from '#lib/storage/storage.ts';

/**
 * The fields getMinMax reads, bounded; their meaning is checked there with messages naming them (MMGIS's
 * map client also sends `type: 'minmax'`, which nothing reads).
 */
const body = {
  type: 'object',
  properties: {
    path: { type: 'string', maxLength: 1024 },
    /** Band numbers and `[from, to]` ranges: a list, its JSON text (`'[1]'`, as the client sends), or one number. */
    bands: {
      type: ['array', 'string', 'number'],
      maxItems: 10_000,
      maxLength: 100_000,
      minimum: -Number.MAX_VALUE,
      maximum: Number.MAX_VALUE,
    },
  },
} as const;

const options = {
  auth: 'viewer',
  body: 'json-or-form',
  schema: { body },
  responses: { 200: { schema: minmaxAnswer }, ...rasterFailures },
  summary:
    "Each band's minimum and maximum: the file's stored statistics, else computed from an overview or the pixels (docs/utils.md).",
} as const;

/**
 * POST /api/utils/getminmax {path, bands} (JSON or form) → `[{band, min, max, source}, ...]` as JSON, the
 * list the established server's script prints; the map client reads `data[0].band`, `.min`, `.max` for a
 * single-band COG layer without `cogMin`/`cogMax` (docs/utils.md).
 */
export const handler = endpoint(options, async ({ body, principal }) =>
  withErrorFlag(async () => {
    const fields = body as Record<string, unknown>;
    assertMayReadPath(principal, fields.path);
    return getMinMax(missionStorage(), fields);
  }),
);
