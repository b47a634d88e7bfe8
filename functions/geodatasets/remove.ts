import { assertDatasetName } from '#lib/geodatasets/catalog.ts';
import { removeGeodataset } from '#lib/geodatasets/manage.ts';
import { layerParam } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { removed } from '#lib/http/openapi/shapes/geodatasets.ts';
import { removeLayerExports } from '#lib/uploads/exportSweep.ts';

const path = { type: 'object', properties: { name: layerParam }, required: ['name'] } as const;

/**
 * DELETE /api/geodatasets/remove/:name; the layer's export jobs and their objects go with it
 * (docs/geodatasets-read.md, "Export jobs").
 */
export const handler = endpoint(
  { auth: 'admin', body: 'raw', schema: { path }, responses: ok(removed) },
  async ({ path, db }) => {
    const name = assertDatasetName(path.name);
    await removeGeodataset(db, name);
    await removeLayerExports(db, name);
    return { status: 'success', message: `Removed geodataset '${name}'.` };
  },
);
