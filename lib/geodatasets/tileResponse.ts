import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { HttpError } from '#lib/http/errors.ts';
import type { HttpResponse } from '#lib/http/response.ts';

/**
 * The `type=mvt` answer of `GET /api/geodatasets/get[/{layer}]` for a dataset already looked up.
 * Placeholder: the tile pipeline lands in lib/geodatasets/tiles*.ts.
 */
export async function tileResponse(input: {
  db: Db;
  ds: Geodataset;
  query: Record<string, any>;
  headers: Record<string, string | undefined>;
}): Promise<HttpResponse> {
  void input;
  throw new HttpError(501, 'Vector tiles (type=mvt) are not implemented yet.');
}
