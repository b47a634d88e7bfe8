import { adminCookie, call } from '../helpers.ts';

/**
 * The part of Playwright's `APIRequestContext` that MMGIS's API specs use, over the suite's `call()` (so
 * every JSON answer is also checked against the OpenAPI document). One context per test, as Playwright's
 * `request` fixture: it keeps the session cookie a login sets. Options: `data` (JSON, or a string sent as
 * is), `form` (a urlencoded form, as Playwright sends it), `multipart` (a multipart form: text fields and
 * files), `params` (the query), `headers` (over the ones these set). `session`: a cookie to start with.
 */
export interface SpecResponse {
  status(): number;
  ok(): boolean;
  headers(): Record<string, string>;
  text(): Promise<string>;
  json(): Promise<any>;
}

interface MultipartFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

interface RequestOptions {
  data?: unknown;
  form?: Record<string, string | number | boolean>;
  multipart?: Record<string, string | MultipartFile>;
  params?: Record<string, string | number>;
  headers?: Record<string, string>;
}

/** A multipart/form-data body as text (the specs' files are small text files). */
function multipartBody(fields: Record<string, string | MultipartFile>): { type: string; body: string } {
  const boundary = `----specboundary${Date.now().toString(16)}`;
  const parts = Object.entries(fields).map(([key, value]) =>
    typeof value === 'string'
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${key}"; filename="${value.name}"\r\n` +
        `Content-Type: ${value.mimeType}\r\n\r\n${value.buffer.toString('utf8')}\r\n`,
  );
  return { type: `multipart/form-data; boundary=${boundary}`, body: `${parts.join('')}--${boundary}--\r\n` };
}

export interface SpecRequest {
  get(url: string, options?: RequestOptions): Promise<SpecResponse>;
  post(url: string, options?: RequestOptions): Promise<SpecResponse>;
  delete(url: string, options?: RequestOptions): Promise<SpecResponse>;
}

export function newRequestContext(base: string, session = ''): SpecRequest {
  let cookie = session;
  const send = async (method: string, url: string, options: RequestOptions = {}) => {
    const target = new URL(url.startsWith('http') ? url : `${base}${url}`);
    for (const [k, v] of Object.entries(options.params ?? {})) target.searchParams.set(k, String(v));
    const headers: Record<string, string> = {};
    let body: unknown;
    if (options.multipart) {
      const { type, body: text } = multipartBody(options.multipart);
      headers['content-type'] = type;
      body = text;
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(
        Object.entries(options.form).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString();
    } else if (options.data !== undefined) {
      body = typeof options.data === 'string' ? options.data : JSON.stringify(options.data);
      headers['content-type'] = 'application/json';
    }
    for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
    const res = await call(method, `${target.pathname}${target.search}`, {
      base: target.origin,
      body,
      headers,
      cookie: cookie || undefined,
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0];
    const response: SpecResponse = {
      status: () => res.status,
      ok: () => res.status >= 200 && res.status < 300,
      headers: () => Object.fromEntries(res.headers),
      text: async () => res.text,
      json: async () => JSON.parse(res.text),
    };
    return response;
  };
  return {
    get: (url, options) => send('GET', url, options),
    post: (url, options) => send('POST', url, options),
    delete: (url, options) => send('DELETE', url, options),
  };
}

/**
 * The modes a spec that skips itself when refused runs in: anonymous, as written, and with the suite's
 * administrator session, as MMGIS's CI runs it with `AUTH=off` (every caller an administrator there;
 * here `AUTH=none` still asks administrators to log in for administration, docs/auth.md).
 */
export const callers = [
  { caller: 'anonymous', session: async () => '' },
  { caller: 'administrator session', session: adminCookie },
];
