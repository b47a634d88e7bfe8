import { tableFromObjects } from '#lib/datasets/csv.ts';
import { assertName, writeDataset } from '#lib/datasets/store.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { datasetWritten } from '#lib/http/openapi/shapes/misc.ts';

/** JSON or MMGIS's jQuery form post: an object of fields (form values arrive as strings). */
const body = { type: 'object' } as const;
const fields = (b: unknown) => b as Record<string, unknown>;

/** POST /api/datasets/recreate {name, header?, csv, mode: 'full'|'append'} (MMGIS's JSON form). */
export const handler = endpoint(
  { auth: 'admin', body: 'json-or-form', schema: { body }, responses: { 200: { schema: datasetWritten } } },
  async ({ body, db }) => {
    const f = fields(body);
    const name = assertName(f.name);
    const mode = f.mode ?? 'full';
    if (mode !== 'full' && mode !== 'append') throw badRequest("'mode' must be 'full' or 'append'.");
    const table = tableFromObjects(f.csv, f.header);
    const r = await writeDataset(db, name, table, mode === 'full' ? 'replace' : 'append');
    return { status: 'success', message: `Stored ${r.added} rows in dataset '${name}'.`, body: r };
  },
);
