import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { assertSameOrigin } from '#lib/http/middleware/cors.ts';

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
});
