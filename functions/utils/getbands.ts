import { endpoint } from '#lib/http/endpoint.ts';
import { bandsText, rasterFailures } from '#lib/http/openapi/shapes/misc.ts';
import { jsonText } from '#lib/http/response.ts';
import { assertMayReadPath, withErrorFlag } from '#lib/rasters/access.ts';
import { getBands } from '#lib/rasters/bands.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

/** A coordinate (a form sends it as text); getBands checks its range (lib/rasters/bands.ts). */
const coordinate = {
  type: ['number', 'string'],
  maxLength: 64,
  minimum: -Number.MAX_VALUE,
  maximum: Number.MAX_VALUE,
} as const;

/**
 * The fields getBands reads, bounded; their meaning is checked there with messages naming them (MMGIS's
 * client also sends `type: 'band'`, which nothing reads).
 */
const body = {
  type: 'object',
  properties: {
    path: { type: 'string', maxLength: 1024 },
    x: {
      ...coordinate,
      description:
        "With `xyorll: 'll'` the **latitude** in [-90, 90] (as the established server reads it and its tools send it); otherwise the pixel column.",
    },
    y: {
      ...coordinate,
      description: "With `xyorll: 'll'` the **longitude** in [-360, 360]; otherwise the pixel row.",
    },
    xyorll: {
      type: 'string',
      maxLength: 8,
      description: "`'ll'`: `x` is latitude and `y` longitude; anything else: `x`/`y` are pixel column/row.",
    },
    /** Band numbers and `[from, to]` ranges: a list, its JSON text, or one number. */
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
  responses: { 200: bandsText, ...rasterFailures },
  summary:
    "The values of bands at one place: with `xyorll: 'll'`, `x` is the latitude and `y` the longitude (docs/utils.md).",
} as const;

/**
 * POST /api/utils/getbands {path, x, y, xyorll, bands} (JSON or form) → `[[band, value], ...]` as text,
 * the established server's answer (its tools `.replace()` the text before parsing it; docs/utils.md).
 */
export const handler = endpoint(options, async ({ body, db, principal }) =>
  withErrorFlag(async () => {
    const fields = body as Record<string, unknown>;
    assertMayReadPath(principal, fields.path);
    return jsonText(await getBands(missionStorage(), srsLookup(db.sql), fields));
  }),
);
