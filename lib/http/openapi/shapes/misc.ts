import { failure, successMessage, successWith } from '../describe.ts';
import { arrayOf, integer, nullable, number, object, string } from '../json.ts';

/** Response shapes of /api/datasets, /api/shortener and /api/utils (docs/datasets.md, docs/shortener.md, docs/utils.md). */

const row = { type: 'object', additionalProperties: string } as const;

/** The body of `POST /api/datasets/upload`: CSV text (RFC 4180), its first row the column names (docs/datasets.md). */
export const csvBody = {
  description:
    'CSV text (RFC 4180): the first row names the columns, every other row is a row of the dataset.',
  content: { 'text/csv': { type: 'string' } },
};

export const datasetWritten = successMessage(
  object({ name: string, rows: integer, columns: arrayOf(string), added: integer }),
);
export const datasetEntries = successWith(
  {
    body: object({
      entries: arrayOf(
        object({
          name: string,
          updated: string,
          rows: integer,
          columns: arrayOf(string),
          occurrences: {
            type: 'object',
            additionalProperties: arrayOf(object({ name: string, uuid: nullable(string), path: string })),
          },
        }),
      ),
    }),
  },
  ['body'],
);
export const datasetRows = successWith({ body: arrayOf(row) }, ['body']);
/** One answer per query, in order; a query that cannot run carries `error` and no results. */
export const datasetQueries = successWith(
  {
    body: arrayOf(
      object({ dataset: {}, column: {}, search: {}, results: arrayOf(row), error: string }, ['error']),
    ),
  },
  ['body'],
);

/** shorten: `body.url` is the code; expand: `body.url` the stored URL. */
export const shortenerAnswer = successMessage(object({ url: string }));

const value = nullable(number);
/**
 * The failures getbands, getprofile and getminmax answer themselves: the usual shape plus the established
 * server's `error: true` (docs/utils.md). Optional: a failure the framework answers before the route runs
 * (a body its schema refuses, a missing login) has the plain shape.
 */
const rasterFailure = { ...failure, properties: { ...failure.properties, error: { const: true } } };
/** 422 of the raster routes: the file is not a readable, georeferenced GeoTIFF (docs/utils.md). */
export const unreadableRaster = {
  description: 'The file is not a readable GeoTIFF, or its georeferencing or CRS is unknown.',
  schema: rasterFailure,
};
/** The failure responses of getbands, getprofile and getminmax, by status (with `error: true`). */
export const rasterFailures = {
  400: {
    description:
      "Bad input: the message names the field (a `path` outside the mission data root, an inline VRT or XML document, or '..' however encoded).",
    schema: rasterFailure,
  },
  403: { description: "The caller may not view the path's mission.", schema: rasterFailure },
  404: { description: 'No such file below the mission data root.', schema: rasterFailure },
  422: unreadableRaster,
};
/**
 * A JSON list sent as `text/plain` (the established server's getprofile/getbands answers): documented as
 * a string whose content is JSON of the given schema.
 */
const textOf = (schema: object, description: string) => ({
  description,
  contentType: 'text/plain',
  schema: { type: 'string', contentMediaType: 'application/json', contentSchema: schema },
});
export const bandsText = textOf(
  arrayOf({ type: 'array', prefixItems: [integer, value] }),
  'The list of [band, value] pairs as text (null at nodata).',
);
export const profileText = textOf(
  arrayOf(arrayOf(value)),
  'The list of [lon, lat, value] (or [x, y, z] with axes=xyz) as text; null outside the raster or at nodata.',
);
/** 501 of `utils/ll2aerll` and `utils/chronice`: the established failure shape (`error: true`). */
export const spiceFailure = {
  description: 'Not available here: the conversion needs SPICE kernels this service does not have.',
  schema: {
    ...failure,
    required: [...failure.required, 'error'],
    properties: { ...failure.properties, error: { const: true } },
  },
};
/** `utils/getminmax`: each band's extremes and where they came from (docs/utils.md). */
export const minmaxAnswer = arrayOf(
  object({
    band: integer,
    min: value,
    max: value,
    source: { enum: ['statistics', 'pixels', 'overview'] },
  }),
);
/** `utils/proj42wkt`: the WKT of the PROJ string, as text. */
export const wktText = {
  description: 'The OGC WKT (WKT1, as GDAL writes it) of the PROJ string, as text.',
  contentType: 'text/plain',
  schema: { type: 'string', minLength: 1 },
};
export const tilesetTimesAnswer = successWith(
  { body: object({ times: arrayOf(object({ t: string, n: string })) }) },
  ['body'],
);

const database = object({ driver: { enum: ['postgres', 'data-api'] }, ok: { type: 'boolean' } });
export const healthy = successWith({ message: string, database }, ['message', 'database']);
/** 503 of the healthcheck: the failure shape with the database's state. */
export const unhealthy = {
  description: 'The database does not answer.',
  schema: {
    ...failure,
    required: [...failure.required, 'database'],
    properties: { ...failure.properties, database },
  },
};
