import { endpoint } from '#lib/http/endpoint.ts';
import { header } from '#lib/http/headers.ts';
import { binary, respond } from '#lib/http/response.ts';
import { assertMayViewMissionFiles } from '#lib/missionFiles/access.ts';
import { missionFileCacheControl } from '#lib/missionFiles/cacheControl.ts';
import { missionFilePath } from '#lib/missionFiles/requestPath.ts';
import { serveMissionFile } from '#lib/missionFiles/serveFile.ts';
import { missionStorage } from '#lib/storage/storage.ts';

const path = {
  type: 'object',
  required: ['proxy'],
  properties: { proxy: { type: 'string', minLength: 1, maxLength: 1024 } },
} as const;

const query = {
  type: 'object',
  properties: {
    time: { type: 'string', minLength: 1, maxLength: 64 },
    starttime: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

/**
 * GET `/Missions/{proxy+}` (and `/missions/{proxy+}`): a file of the mission data root, as MMGIS serves its
 * `Missions` folder (docs/mission-site.md): for those who may view the mission, with validators, 304 and
 * byte ranges.
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { path, query },
    failures: 'real-status',
    summary: "A file of a mission's data (tiles, DEM tiles, legends, data files), as MMGIS serves /Missions.",
  },
  async ({ path, query, principal, headers }) => {
    const file = missionFilePath(path.proxy);
    assertMayViewMissionFiles(principal, file.mission);
    const answer = await serveMissionFile(missionStorage(), {
      key: file.key,
      time: query.time,
      starttime: query.starttime,
      headers: {
        ifNoneMatch: header(headers, 'if-none-match'),
        ifModifiedSince: header(headers, 'if-modified-since'),
        range: header(headers, 'range'),
        ifRange: header(headers, 'if-range'),
      },
      cacheControl: missionFileCacheControl(),
    });
    if (answer.failure !== undefined) {
      return respond(
        answer.statusCode,
        { status: 'failure', message: answer.failure },
        { headers: answer.headers },
      );
    }
    if (!answer.body) return respond(answer.statusCode, undefined, { headers: answer.headers });
    const { 'Content-Type': type, ...rest } = answer.headers;
    return binary(answer.statusCode, Buffer.from(answer.body).toString('base64'), type, rest);
  },
);
