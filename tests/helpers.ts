import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { assertConforms } from './fixtures/openapiConformance.ts';

export const apiUrl = () => inject('apiUrl');
export const apiUrlLocal = () => inject('apiUrlLocal');
export const adminToken = () => inject('admin').token;
export const isEmbedded = () => inject('embedded');

let adminSession: Promise<string> | undefined;
/**
 * A session cookie of the suite's administrator (one login per test process; both services share the
 * database, so it works on either). User and token management need a session (docs/auth.md).
 */
export function adminCookie(): Promise<string> {
  adminSession ??= login(inject('admin').username, inject('admin').password);
  return adminSession;
}

/** A name no other test (or parallel test file) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * One HTTP request against the running service. `token` adds `Authorization: Bearer`; `cookie` a Cookie
 * header; a string `body` is sent as is (for malformed JSON tests), anything else as JSON. A JSON answer
 * must conform to the service's OpenAPI document (tests/fixtures/openapiConformance.ts), else this throws.
 */
export async function call<T = any>(
  method: string,
  path: string,
  opts: {
    body?: unknown;
    token?: string;
    cookie?: string;
    headers?: Record<string, string>;
    base?: string;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const base = opts.base ?? apiUrl();
  const res = await fetchOnce(`${base}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  const contentType = res.headers.get('content-type');
  await assertConforms(base, method, path, { status: res.status, contentType, body: parsed, text });
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * `fetch`, sent again once when it is a GET whose kept-alive socket the service closed before any answer
 * (`UND_ERR_SOCKET`: the server's idle timeout and the client's reuse crossed), as browsers retry an
 * idempotent request. A service that is down refuses the second try too.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code;
    if ((init.method ?? 'GET') !== 'GET' || code !== 'UND_ERR_SOCKET') throw e;
    return fetch(url, init);
  }
}

/** Logs in and returns the `MMGISSession=...` cookie pair. */
export async function login(username: string, password: string, base?: string): Promise<string> {
  const res = await fetch(`${base ?? apiUrl()}/api/users/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return res.headers.get('set-cookie')!.split(';')[0];
}

/** Creates a user (as admin, by an admin session) and returns its session cookie. */
export async function userWithSession(
  role: 'admin' | 'user' = 'user',
  missions: string[] = [],
  base?: string,
): Promise<{ username: string; password: string; cookie: string }> {
  const username = uniqueName('u');
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const cookie = await adminCookie();
  const su = await call('POST', '/api/users/signup', { body: { username, password }, cookie });
  if (su.status !== 201) throw new Error(`signup failed: ${su.status} ${su.text}`);
  if (role !== 'user' || missions.length) {
    const up = await call('POST', '/api/users/update', {
      body: { username, role, missions },
      cookie,
    });
    if (up.status !== 200) throw new Error(`update failed: ${up.status} ${up.text}`);
  }
  return { username, password, cookie: await login(username, password, base) };
}
