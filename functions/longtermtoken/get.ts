import { assertSession } from '#lib/auth/permissions.ts';
import { listTokens } from '#lib/auth/tokens.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { tokensAnswer } from '#lib/http/openapi/shapes/users.ts';

export const handler = endpoint({ auth: 'admin', responses: ok(tokensAnswer) }, async ({ db, principal }) => {
  assertSession(principal);
  // The established server's shape: the list under `tokens` (its configure app reads `res.tokens`).
  return { status: 'success', tokens: await listTokens(db.sql) };
});
