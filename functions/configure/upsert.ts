import { upsert } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const body = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Creates or replaces a mission's configuration (a new version); `version` rolls back. */
export const handler = endpoint({ auth: 'admin', schema: { body } }, ({ body, db }) => upsert(db, body));
