import { notFound } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { header } from '#lib/http/headers.ts';
import { binary, rawJson, respond } from '#lib/http/response.ts';
import { mmgisBuild } from '#lib/web/mmgis/clientDir.ts';
import { mmgisSite } from '#lib/web/mmgis/site.ts';

const path = {
  type: 'object',
  properties: { proxy: { type: 'string', minLength: 1, maxLength: 1024 } },
} as const;

/**
 * The MMGIS 3.0.0 front end, when the operator has handed over its build (`MMGIS_CLIENT_DIR`, or deployed
 * its page templates in the site bucket, `MMGIS_CLIENT_BUCKET`; docs/mission-site.md): its map page at `/`
 * (through webServe), its configure app at `/configure-beta`, and its static folders (`/build`, `/public`,
 * `/configure/build`, ...; from the folder only). Without a build, 404.
 */
export const handler = endpoint(
  { auth: 'public', schema: { path }, summary: "The MMGIS front end's pages and static files." },
  async ({ event, principal, headers }) => {
    const build = await mmgisBuild();
    if (!build)
      throw notFound('No MMGIS front end is configured here (MMGIS_CLIENT_DIR, MMGIS_CLIENT_BUCKET).');
    const answer = await mmgisSite(build, event.path ?? '/', principal, {
      host: header(headers, 'host'),
      ifNoneMatch: header(headers, 'if-none-match'),
    });
    if (answer.statusCode === 304) return respond(304, undefined, { headers: answer.headers });
    if (answer.text !== undefined) return rawJson(200, answer.text, answer.headers);
    const { 'Content-Type': type, ...rest } = answer.headers;
    return binary(200, (answer.bytes ?? Buffer.alloc(0)).toString('base64'), type, rest);
  },
);
