import { type AuthRule, assertAllowed } from '#lib/auth/permissions.ts';
import { resolvePrincipal } from '#lib/auth/principal.ts';
import { withConnectionRetry } from '#lib/db/connectionErrors.ts';
import { assertSameOrigin } from './sameOrigin.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/**
 * Resolves the caller (Bearer token, then session cookie; docs/auth.md) onto `context.principal`, refuses
 * cross-site state changes (`assertSameOrigin`; on `public` endpoints even without a session) and applies
 * the endpoint's `rule`: a refusal is a 401/403 before the body is parsed or the endpoint runs.
 */
export function authentication({
  rule,
  ignoreBadToken,
}: {
  rule: AuthRule;
  ignoreBadToken?: boolean;
}): EndpointMiddleware {
  const authenticationBefore = async (request: EndpointRequest) => {
    const headers = (request.event.headers ?? {}) as Record<string, string | undefined>;
    // A refused or broken connection is retried once (lib/db/connectionErrors.ts).
    const principal = await withConnectionRetry(
      () => resolvePrincipal(request.context.db.sql, headers, { ignoreBadToken }),
      true,
    );
    assertSameOrigin(request.event, principal, { anonymous: rule === 'public' });
    assertAllowed(rule, principal);
    request.context.principal = principal;
  };
  return { before: authenticationBefore };
}
