import qs from 'qs';
import { adminToken, call, userWithSession } from '../helpers.ts';

/** Who calls: a session cookie or the admin token. */
export interface As {
  cookie?: string;
  token?: string;
  base?: string;
}

export const admin = (): As => ({ token: adminToken() });

export async function newUser(base?: string): Promise<As & { username: string }> {
  const u = await userWithSession('user', [], base);
  return { username: u.username, cookie: u.cookie, base };
}

export function post(path: string, body: unknown, as: As) {
  return call('POST', path, { body, cookie: as.cookie, token: as.token, base: as.base });
}

/** The same request as a jQuery `$.ajax` form post (`$.param` style: `ids[]=1`, `a[b]=c`). */
export function postForm(path: string, body: Record<string, unknown>, as: As) {
  return call('POST', path, {
    body: qs.stringify(body, { arrayFormat: 'brackets' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    cookie: as.cookie,
    token: as.token,
    base: as.base,
  });
}

export async function makeFile(as: As, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await post('/api/files/make', { file_name: `f${Math.random()}`, ...extra }, as);
  if (r.status !== 200) throw new Error(`make failed: ${r.status} ${r.text}`);
  return r.body.body.file_id;
}

export async function add(as: As, fileId: number, geometry: unknown, extra: Record<string, unknown> = {}) {
  const r = await post('/api/draw/add', { file_id: fileId, geometry, ...extra }, as);
  if (r.status !== 200) throw new Error(`add failed: ${r.status} ${r.text}`);
  return r.body.body as { id: number; uuid: string; intent: string | null; ids: number[] };
}

export async function features(as: As, fileId: number, time?: number) {
  const r = await post('/api/files/getfile', { id: fileId, ...(time ? { time } : {}) }, as);
  if (r.status !== 200) throw new Error(`getfile failed: ${r.status} ${r.text}`);
  return r.body.body.geojson.features as any[];
}

export async function history(as: As, fileId: number) {
  const r = await post('/api/files/gethistory', { id: fileId }, as);
  if (r.status !== 200) throw new Error(`gethistory failed: ${r.status} ${r.text}`);
  return r.body.body as {
    history_id: number;
    time: number;
    action_index: number;
    history: number[];
    message: string;
  }[];
}

export const square = (x: number, y: number, s: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [x, y],
      [x + s, y],
      [x + s, y + s],
      [x, y + s],
      [x, y],
    ],
  ],
});
