import { assertSession } from '#lib/auth/permissions.ts';
import { clearToken } from '#lib/auth/tokens.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok, successMessage } from '#lib/http/openapi/describe.ts';

const body = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', format: 'uuid' } },
} as const;

export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(successMessage()) },
  async ({ body, db, principal }) => {
    assertSession(principal);
    await clearToken(db.sql, body.id);
    return { status: 'success', message: `Revoked token ${body.id}.` };
  },
);
