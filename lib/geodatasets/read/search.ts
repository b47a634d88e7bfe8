import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import type { Geodataset } from '../catalog.ts';
import { parsePath } from './filters.ts';
import { readFeaturesJson } from './geojson.ts';

/**
 * POST /search: the features whose property at the dot path `key` has the text `value` (docs/contract.md#4-geodatasets-api:
 * `"5"` finds 5 and "5"), as `{status:'success', body:[features]}` text built by the database.
 */
export async function readSearch(
  sql: Queryable,
  ds: Geodataset,
  key: unknown,
  value: unknown,
): Promise<string> {
  const path = parsePath(key, 'key');
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw badRequest(`'value' must be a string, number or boolean.`);
  }
  return readFeaturesJson(
    sql,
    ds,
    { filters: [{ path, op: '=', type: 'string', values: [String(value)] }], noDuplicates: false },
    { offset: 0 },
    { before: '{"status":"success","body":', after: '}' },
  );
}
