import { tableFromObjects } from '#lib/datasets/csv.ts';
import { assertName, writeDataset } from '#lib/datasets/store.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { datasetWritten } from '#lib/http/openapi/shapes/misc.ts';

/** POST /api/datasets/recreate {name, header?, csv, mode: 'full'|'append'} (MMGIS's JSON form). */
export const handler = endpoint(
  { auth: 'admin', ...jsonOrForm, responses: ok(datasetWritten) },
  async ({ body, db }) => {
    const f = fieldsOf(body);
    const name = assertName(f.name);
    const mode = f.mode ?? 'full';
    if (mode !== 'full' && mode !== 'append') throw badRequest("'mode' must be 'full' or 'append'.");
    const table = tableFromObjects(f.csv, f.header);
    const r = await writeDataset(db, name, table, mode === 'full' ? 'replace' : 'append');
    return { status: 'success', message: `Stored ${r.added} rows in dataset '${name}'.`, body: r };
  },
);
