import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { assertSameOrigin } from '#lib/http/middleware/sameOrigin.ts';

const session: Principal = {
  user: { id: 1, username: 'a', email: null, role: 'admin', missions: [], createdAt: '' },
  via: 'session',
  sessionCookie: 'x',
};
const event = (method: string, headers: Record<string, string>) =>
  ({
    httpMethod: method,
    headers: { host: 'api.example.org', ...headers },
  }) as unknown as APIGatewayProxyEvent;

describe('assertSameOrigin (docs/auth.md, cross-site requests)', () => {
  afterEach(() => {
    delete process.env.CORS_ORIGINS;
  });

  it('lets CORS_ORIGINS and the own origin through, refuses others with 403', () => {
    process.env.CORS_ORIGINS = 'https://map.example.org, https://other.example.org';
    expect(() =>
      assertSameOrigin(event('POST', { origin: 'https://map.example.org' }), session),
    ).not.toThrow();
    expect(() =>
      assertSameOrigin(event('DELETE', { origin: 'https://api.example.org' }), session),
    ).not.toThrow();
    expect(() => assertSameOrigin(event('POST', {}), session)).not.toThrow();
    expect(() => assertSameOrigin(event('GET', { origin: 'https://evil.example' }), session)).not.toThrow();
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { referer: 'https://evil.example/x' },
    ];
    for (const headers of refused) {
      expect(() => assertSameOrigin(event('PUT', headers), session)).toThrow(
        expect.objectContaining({ statusCode: 403 }),
      );
    }
    const token: Principal = { ...session, via: 'token' };
    expect(() => assertSameOrigin(event('POST', { origin: 'https://evil.example' }), token)).not.toThrow();
  });

  it('checks anonymous requests to the endpoints that create a session or an account (`anonymous`)', () => {
    const nobody: Principal = { user: null, via: null, sessionCookie: null };
    // Without the flag an anonymous request is not checked (reads such as POST search stay open)...
    expect(() => assertSameOrigin(event('POST', { origin: 'https://evil.example' }), nobody)).not.toThrow();
    // ...with it (login, logout, signup, first_signup), a cross-site form is refused.
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { referer: 'https://evil.example/login' },
    ];
    for (const headers of crossSite) {
      expect(() => assertSameOrigin(event('POST', headers), nobody, { anonymous: true })).toThrow(
        expect.objectContaining({ statusCode: 403 }),
      );
    }
    expect(() =>
      assertSameOrigin(event('POST', { origin: 'https://api.example.org' }), nobody, { anonymous: true }),
    ).not.toThrow();
    expect(() => assertSameOrigin(event('POST', {}), nobody, { anonymous: true })).not.toThrow();
    const token: Principal = { ...session, via: 'token' };
    expect(() =>
      assertSameOrigin(event('POST', { origin: 'https://evil.example' }), token, { anonymous: true }),
    ).not.toThrow();
  });
});
