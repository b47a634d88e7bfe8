import { assertSession } from '#lib/auth/permissions.ts';
import { listTokens } from '#lib/auth/tokens.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint({ auth: 'admin' }, async ({ db, principal }) => {
  assertSession(principal);
  return { status: 'success', body: { tokens: await listTokens(db.sql) } };
});
