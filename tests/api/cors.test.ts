import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';

// The test services run with CORS_ORIGINS=https://app.allowed.test (tests/setup/global.ts). Local answers
// must carry the CORS headers the Lambda sends, as on AWS (docs/auth.md, "CORS"), not serverless-offline's
// echo of any Origin with credentials.
const ALLOWED = 'https://app.allowed.test';
const FOREIGN = 'https://evil.example';

describe('CORS under serverless-offline matches the deployed service', () => {
  it('a foreign Origin gets `*` and never Access-Control-Allow-Credentials', async () => {
    const ok = await call('GET', '/api/configure/missions', { headers: { origin: FOREIGN } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(ok.headers.get('access-control-expose-headers')).toBe('ETag, Location');
    // (A public read: a foreign page may not post to login at all, docs/auth.md.)
    const err = await call('POST', '/api/geodatasets/search', { body: '{', headers: { origin: FOREIGN } });
    expect(err.status).toBe(400);
    expect(err.headers.get('access-control-allow-origin')).toBe('*');
    expect(err.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('an Origin listed in CORS_ORIGINS is echoed with credentials', async () => {
    const ok = await call('GET', '/api/configure/missions', { headers: { origin: ALLOWED } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ok.headers.get('vary')).toMatch(/origin/i);
    const err = await call('POST', '/api/users/login', { body: '{', headers: { origin: ALLOWED } });
    expect(err.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(err.headers.get('access-control-allow-credentials')).toBe('true');
  });

  const preflight = (origin: string) =>
    call('OPTIONS', '/api/users/login', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-evil',
      },
    });

  it('a preflight OPTIONS from another origin is answered like API Gateway’s `cors: true` mock', async () => {
    const res = await preflight(FOREIGN);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBe('OPTIONS,POST');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-User-Agent',
    );
  });

  it('a preflight from a CORS_ORIGINS origin allows credentials (a JSON POST with its cookie)', async () => {
    const res = await preflight(ALLOWED);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toMatch(/origin/i);
    expect(res.headers.get('access-control-allow-methods')).toBe('OPTIONS,POST');
    // A prefix or suffix of an allowed origin is another origin.
    const near = await preflight(`${ALLOWED}.evil.example`);
    expect(near.headers.get('access-control-allow-origin')).toBe('*');
    expect(near.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('a request without Origin gets `*` and no credentials', async () => {
    const res = await call('GET', '/api/configure/missions');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
