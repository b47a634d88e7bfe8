import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { tilesetTimesAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { assertMayReadPath } from '#lib/rasters/access.ts';
import { queryTilesetTimes } from '#lib/rasters/tilesetTimes.ts';
import { missionStorage } from '#lib/storage/storage.ts';

const query = {
  type: 'object',
  properties: {
    path: { type: 'string', maxLength: 1024 },
    starttime: { type: 'string', maxLength: 64 },
    endtime: { type: 'string', maxLength: 64 },
  },
} as const;

/** GET /api/utils/queryTilesetTimes?path=...&starttime=&endtime= → {times: [{t, n}]}. */
export const handler = endpoint(
  { auth: 'viewer', body: 'raw', schema: { query }, responses: ok(tilesetTimesAnswer) },
  async ({ query, principal }) => {
    assertMayReadPath(principal, query.path);
    return { status: 'success', body: { times: await queryTilesetTimes(missionStorage(), query) } };
  },
);
