import { describe, expect, it } from 'vitest';
import { apiUrlLocal, call, uniqueName } from '../helpers.ts';

describe('shortener', () => {
  it('shortens, gives the same code for the same url, expands and redirects', async () => {
    const url = `https://example.org/map?mission=${uniqueName('m')}&x=1`;
    const a = await call('POST', '/api/shortener/shorten', { body: { url } });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      status: 'success',
      body: { url: expect.stringMatching(/^[0-9a-z]{6,}$/) },
    });
    const b = await call('POST', '/api/shortener/shorten', { body: { url } });
    expect(b.body.body.url).toBe(a.body.body.url);
    const other = await call('POST', '/api/shortener/shorten', { body: { url: `${url}&y=2` } });
    expect(other.body.body.url).not.toBe(a.body.body.url);

    const ex = await call('POST', '/api/shortener/expand', { body: { short: a.body.body.url } });
    expect(ex.status).toBe(200);
    expect(ex.body).toEqual({ status: 'success', message: expect.any(String), body: { url } });

    const go = await call('GET', `/api/shortener/${a.body.body.url}`);
    expect(go.status).toBe(302);
    expect(go.headers.get('location')).toBe(url);
  });

  it('accepts the map client form post and site paths', async () => {
    const path = `/?mission=${uniqueName('m')}&on=a,b`;
    const res = await call('POST', '/api/shortener/shorten', {
      body: new URLSearchParams({ url: path }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect(res.status).toBe(200);
    const ex = await call('POST', '/api/shortener/expand', {
      body: `short=${res.body.body.url}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(ex.body.body.url).toBe(path);
  });

  it.each([
    ['javascript:', { url: 'javascript:alert(1)' }],
    ['empty', { url: '' }],
    ['missing', {}],
    ['too long', { url: `https://example.org/${'a'.repeat(2048)}` }],
    ['protocol-relative', { url: '//evil.example/x' }],
    ['ftp', { url: 'ftp://example.org/x' }],
  ])('refuses a bad url (%s) with 400', async (_label, body) => {
    const res = await call('POST', '/api/shortener/shorten', { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'failure', message: expect.stringContaining('url') });
  });

  it('expand: missing short is 400, unknown is 404; redirect of unknown is 404', async () => {
    expect((await call('POST', '/api/shortener/expand', { body: {} })).status).toBe(400);
    expect((await call('POST', '/api/shortener/expand', { body: { short: 'zzzzzzzzz' } })).status).toBe(404);
    expect((await call('GET', '/api/shortener/zzzzzzzzz')).status).toBe(404);
  });

  it('needs a login under AUTH=local', async () => {
    const res = await call('POST', '/api/shortener/shorten', {
      body: { url: 'https://example.org/' },
      base: apiUrlLocal(),
    });
    expect(res.status).toBe(401);
  });
});
