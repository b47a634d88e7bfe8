import { endpoint } from '#lib/http/endpoint.ts';
import { healthy, unhealthy } from '#lib/http/openapi/shapes/misc.ts';
import { respond } from '#lib/http/response.ts';
import { checkDatabase } from '#lib/rasters/health.ts';

/** GET /api/utils/healthcheck: 200 when the database answers a trivial query, else 503. */
export const handler = endpoint(
  { auth: 'public', body: 'raw', responses: { 200: { schema: healthy }, 503: unhealthy } },
  async ({ db }) => {
    const database = await checkDatabase(db.sql);
    return database.ok
      ? { status: 'success', message: 'Alive and well', database }
      : respond(503, { status: 'failure', message: 'The database does not answer.', database });
  },
);
