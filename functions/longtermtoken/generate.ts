import { assertSession } from '#lib/auth/permissions.ts';
import { generateToken } from '#lib/auth/tokens.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { newToken } from '#lib/http/openapi/shapes/users.ts';
import { respond } from '#lib/http/response.ts';

const body = {
  type: 'object',
  properties: {
    name: { type: ['string', 'null'], maxLength: 128 },
    // "never" or milliseconds; parsePeriod (lib/auth/tokens.ts) refuses those past 100 years, naming the rule.
    period: {
      type: ['string', 'number', 'null'],
      maxLength: 20,
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    },
  },
} as const;

/** The only response that ever shows the full token. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 201: { schema: newToken } } },
  async ({ body, db, principal }) => {
    assertSession(principal);
    const token = await generateToken(db.sql, principal.user!.id, body ?? {});
    return respond(201, { status: 'success', body: token });
  },
);
