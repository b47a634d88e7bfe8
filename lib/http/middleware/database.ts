import { getDb } from '#lib/db/index.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/** Puts the instance's database handle (one small pool per Lambda instance) on `context.db`. */
export function database({ db = getDb }: { db?: typeof getDb } = {}): EndpointMiddleware {
  const databaseBefore = (request: EndpointRequest) => {
    request.context.db = db();
  };
  return { before: databaseBefore };
}
