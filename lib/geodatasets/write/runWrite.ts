import type { Db } from '#lib/db/index.ts';
import { appendGeodataset, recreateGeodataset } from './write.ts';
import type { WriteRequest } from './writeRequest.ts';

/** Runs a parsed write request and shapes the answer of docs/contract.md#4-geodatasets-api. */
export async function runWrite(db: Db, req: WriteRequest) {
  const fn = req.action === 'append' ? appendGeodataset : recreateGeodataset;
  const body = await fn(db, req.geojson, req.opts);
  return { status: 'success', body };
}
