import qs from 'qs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertConforms } from '../fixtures/openapiConformance.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

/**
 * The established MMGIS web client's requests, replayed as its jQuery `$.ajax` sends them
 * (docs/contract.md, section 1): the path as the client writes it (`API/...` or `api/...`), a form body
 * (`$.param`: `a[]=1`, `a[b]=c`, spaces as `+`, null as an empty value), `X-Requested-With: XMLHttpRequest`,
 * the page's own `Origin` and the session cookie; then the fields the client reads from each answer.
 */
interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

interface Page {
  base: string;
  cookie?: string;
}

async function send(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string; base: string },
): Promise<Answer> {
  const res = await fetch(`${init.base}${path}`, {
    method,
    headers: init.headers,
    body: init.body,
    redirect: 'manual',
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  const xhr = init.headers?.['X-Requested-With'] !== undefined;
  // Every real status conforms to the OpenAPI document (at its /api path); the client's 200 failures
  // are the one documented exception (docs/contract.md).
  if (!xhr || body?.status !== 'failure') {
    await assertConforms(init.base, method, path.replace(/^\/API\//, '/api/'), {
      status: res.status,
      contentType: res.headers.get('content-type'),
      body,
      text,
    });
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** `$.ajax({type, url, data})` from a page of the service's own origin. */
function jquery(method: 'GET' | 'POST', path: string, data: Record<string, unknown>, page: Page) {
  const encoded = qs.stringify(data, { arrayFormat: 'brackets', format: 'RFC1738' });
  const headers: Record<string, string> = {
    Accept: '*/*',
    'X-Requested-With': 'XMLHttpRequest',
    Origin: new URL(page.base).origin,
    Referer: `${page.base}/?mission=Harness`,
  };
  if (page.cookie) headers.Cookie = page.cookie;
  if (method === 'GET') {
    return send('GET', encoded ? `${path}?${encoded}` : path, { headers, base: page.base });
  }
  headers['Content-Type'] = 'application/x-www-form-urlencoded; charset=UTF-8';
  return send('POST', path, { headers, body: encoded, base: page.base });
}

/** The same request from a script: no X-Requested-With, no Origin (its real status codes apply). */
function script(method: 'GET' | 'POST', path: string, data: Record<string, unknown>, page: Page) {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (page.cookie) headers.Cookie = page.cookie;
  const encoded = qs.stringify(data, { arrayFormat: 'brackets' });
  if (method === 'GET')
    return send('GET', encoded ? `${path}?${encoded}` : path, { headers, base: page.base });
  return send('POST', path, { headers, body: encoded, base: page.base });
}

const failure = { status: 'failure', message: expect.any(String) };

describe('MMGIS web client: login (API/users/login, docs/auth.md)', () => {
  let user: { username: string; password: string };
  beforeAll(async () => {
    user = await userWithSession('user', [], apiUrlLocal());
  });

  it('page load: the client asks `useToken` without a session and gets a failure it can read', async () => {
    const page = { base: apiUrlLocal() };
    const answer = await jquery('POST', '/API/users/login', { useToken: true }, page);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(failure);
    expect(answer.headers.get('vary')).toContain('X-Requested-With');
    // A script sending the same gets the real status.
    const real = await script('POST', '/API/users/login', { useToken: true }, page);
    expect(real.status).toBeGreaterThanOrEqual(400);
    expect(real.status).toBeLessThan(500);
    expect(real.body).toEqual(answer.body);
  });

  it('page load with a session: `useToken` answers who is logged in (the client then loads the map)', async () => {
    const session = await userWithSession('user', [], apiUrlLocal());
    const page = { base: apiUrlLocal(), cookie: session.cookie };
    const answer = await jquery('POST', '/API/users/login', { useToken: true }, page);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'success', username: session.username, role: 'user', groups: [] });
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('the login page posts a form: success sets the session; a wrong password is a 200 failure', async () => {
    const page = { base: apiUrlLocal() };
    const ok = await jquery('POST', '/API/users/login', user, page);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('success');
    expect(ok.body.username).toBe(user.username);
    const cookie = ok.headers.get('set-cookie')!.split(';')[0];
    expect(cookie).toMatch(/^MMGISSession=/);
    const who = await jquery('GET', '/api/users/logged_in', {}, { ...page, cookie });
    expect(who.body).toMatchObject({ status: 'success', body: { loggedIn: true, user: user.username } });

    const wrong = await jquery('POST', '/API/users/login', { ...user, password: 'not it at all' }, page);
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual(failure);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const real = await script('POST', '/api/users/login', { ...user, password: 'not it at all' }, page);
    expect(real.status).toBe(401);
  });

  it('refuses a cross-site login form (403) and a text/plain body (415), for the client and for others', async () => {
    const base = apiUrlLocal();
    const crossSite = await send('POST', '/API/users/login', {
      base,
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'https://evil.example',
      },
      body: qs.stringify(user),
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();
    const viaReferer = await send('POST', '/api/users/logout', {
      base,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Referer: 'https://evil.example/x' },
      body: '',
    });
    expect(viaReferer.status).toBe(403);
    const plain = await send('POST', '/api/users/login', {
      base,
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify(user),
    });
    expect(plain.status).toBe(415);
    expect(plain.body).toEqual({
      status: 'failure',
      message:
        'Unsupported Content-Type "text/plain": send JSON (application/json) or a form ' +
        '(application/x-www-form-urlencoded).',
    });
    // The same request from the client's own page is refused too (as a failure it can read).
    const fromClient = await send('POST', '/API/users/login', {
      base,
      headers: { 'Content-Type': 'text/plain', 'X-Requested-With': 'XMLHttpRequest' },
      body: JSON.stringify(user),
    });
    expect(fromClient.status).toBe(200);
    expect(fromClient.body).toEqual(plain.body);
  });
});

describe('MMGIS web client: the map (docs/contract.md, section 1)', () => {
  const layer = uniqueName('edge_pts');
  beforeAll(async () => {
    const features = [1, 2, 3].map((i) => ({
      type: 'Feature',
      properties: { name: `p${i}`, kind: i % 2 ? 'odd' : 'even' },
      geometry: { type: 'Point', coordinates: [i, i] },
    }));
    const made = await call('POST', '/api/geodatasets/recreate', {
      token: adminToken(),
      body: { name: layer, geojson: { type: 'FeatureCollection', features } },
    });
    expect(made.status).toBe(200);
  });

  it('answers the same under /API/ and /api/; another spelling is an unknown route', async () => {
    const page = { base: apiUrl() };
    // Other test files add and remove missions meanwhile: the /API answer must equal an /api answer next
    // to it, in one of three tries.
    let same = false;
    for (let i = 0; i < 3 && !same; i++) {
      const lower = await jquery('GET', '/api/configure/missions', {}, page);
      const upper = await jquery('GET', '/API/configure/missions', {}, page);
      const later = await jquery('GET', '/api/configure/missions', {}, page);
      expect(lower.status).toBe(200);
      expect(upper.status).toBe(200);
      expect(upper.body.status).toBe('success');
      same = upper.text === lower.text || upper.text === later.text;
    }
    expect(same).toBe(true);
    const layerGet = { layer, type: 'geojson' };
    const a = await jquery('GET', '/API/geodatasets/get', layerGet, page);
    const b = await jquery('GET', '/api/geodatasets/get', layerGet, page);
    expect(a.body.features).toHaveLength(3);
    expect(a.text).toBe(b.text);
    // (serverless-offline's own 404 locally, API Gateway's 403 "Missing Authentication Token" deployed.)
    const other = await fetch(`${page.base}/Api/configure/missions`);
    expect(other.status).toBe(404);
  });

  it('searches a layer with a form and reads `body` (API/geodatasets/search)', async () => {
    const page = { base: apiUrl() };
    const found = await jquery('POST', '/API/geodatasets/search', { layer, key: 'kind', value: 'odd' }, page);
    expect(found.status).toBe(200);
    expect(found.body.status).toBe('success');
    expect(found.body.body.map((f: any) => f.properties.name).sort()).toEqual(['p1', 'p3']);
    // An unknown layer: the client's failure handler gets the body; a script gets the 404.
    const missing = await jquery('POST', '/API/geodatasets/search', { layer: 'no_such_layer_x' }, page);
    expect(missing.status).toBe(200);
    expect(missing.body).toEqual({ status: 'failure', message: expect.stringContaining('not found') });
    expect((await script('POST', '/API/geodatasets/search', { layer: 'no_such_layer_x' }, page)).status).toBe(
      404,
    );
  });

  it('expands an unknown short link as a failure the client reads (API/shortener/expand)', async () => {
    const page = { base: apiUrl() };
    const answer = await jquery('POST', '/API/shortener/expand', { short: 'zzzzzzzz' }, page);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(failure);
  });
});

describe('MMGIS web client: the draw tool (API/files/*, API/draw/*)', () => {
  let page: Page;
  beforeAll(async () => {
    const user = await userWithSession('user', [], apiUrlLocal());
    page = { base: apiUrlLocal(), cookie: user.cookie };
  });

  it('lists files, makes one, adds a feature and reads it back, all as forms', async () => {
    const list = await jquery('POST', '/API/files/getfiles', {}, page);
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body.body)).toBe(true);
    const made = await jquery(
      'POST',
      '/API/files/make',
      { file_name: 'Edge file', file_description: 'made by the client ~#tag', intent: 'all' },
      page,
    );
    expect(made.status).toBe(200);
    const fileId = made.body.body.file_id;
    expect(Number.isInteger(fileId)).toBe(true);
    const added = await jquery(
      'POST',
      '/API/draw/add',
      {
        file_id: fileId,
        intent: 'point',
        properties: JSON.stringify({ name: 'a point', style: { color: '#fff' } }),
        geometry: JSON.stringify({ type: 'Point', coordinates: [10, 20] }),
      },
      page,
    );
    expect(added.status).toBe(200);
    expect(added.body.body).toMatchObject({ id: expect.any(Number), intent: 'point' });
    const file = await jquery('POST', '/API/files/getfile', { id: fileId }, page);
    expect(file.body.body.geojson.features.map((f: any) => f.properties.name)).toEqual(['a point']);
  });

  it('answers a logged-out draw call with a failure the client reads, others with 401', async () => {
    const anonymous = { base: apiUrlLocal() };
    const answer = await jquery('POST', '/API/files/getfiles', {}, anonymous);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(failure);
    expect((await script('POST', '/API/files/getfiles', {}, anonymous)).status).toBe(401);
  });

  it('refuses 40,000 form fields at once with a 400 (the parse is bounded)', async () => {
    const body = Array.from({ length: 40_000 }, (_, i) => `id%5B%5D=${i}`).join('&');
    const started = Date.now();
    const answer = await send('POST', '/API/files/getfile', {
      base: page.base,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: page.cookie! },
      body,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/Parameter limit exceeded\. Only 1000 parameters allowed/);
  });
});

describe('forms give the same typed input as JSON (docs/contract.md, section 1)', () => {
  it('coerces a form by the endpoint schema (configure/updateInitialView: forceClientUpdate)', async () => {
    const mission = uniqueName('Edge');
    const config = { msv: { view: [0, 0, 1] }, layers: [], tools: [] };
    const added = await call('POST', '/api/configure/add', {
      token: adminToken(),
      body: { mission, config },
    });
    expect(added.status).toBe(201);
    const change = { mission, latitude: 10, longitude: 20, zoom: 3, forceClientUpdate: true };
    const form = await send('POST', '/API/configure/updateInitialView', {
      base: apiUrl(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Bearer ${adminToken()}`,
      },
      body: qs.stringify(change),
    });
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({ status: 'success', mission });
    const got = await call('GET', `/api/configure/get?mission=${mission}`);
    expect(got.body.msv.view.map(Number)).toEqual([10, 20, 3]);
    // JSON keeps strict types: the string "true" is not a boolean there.
    const json = await call('POST', '/api/configure/updateInitialView', {
      token: adminToken(),
      body: { ...change, forceClientUpdate: 'true' },
    });
    expect(json.status).toBe(400);
    expect(json.body.message).toBe("Body field 'forceClientUpdate' must be boolean.");
  });
});
