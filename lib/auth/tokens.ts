import { randomUUID } from 'node:crypto';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import { toInteger } from '#lib/numbers.ts';
import { newSecret, sha256 } from './secrets.ts';
import { toUser, type User } from './users.ts';

const TOKEN_PREFIX = 'mmgis_';

export interface TokenInfo {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

const iso = (d: unknown) => (d ? new Date(d as string).toISOString() : null);

function toInfo(row: Record<string, any>): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: iso(row.created_at)!,
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
  };
}

/** The longest token lifetime (100 years): beyond it the expiry date would not be a valid date. */
const MAX_PERIOD_MS = 100 * 365.25 * 24 * 3600 * 1000;

/** `"never"` (or absent) → no expiry; a positive number of milliseconds (number or numeric string). */
export function parsePeriod(period: unknown): number | null {
  if (period === undefined || period === null || period === 'never') return null;
  const n = toInteger(period);
  if (!Number.isSafeInteger(n) || n <= 0 || n > MAX_PERIOD_MS) {
    throw badRequest(
      `'period' must be "never" or a positive number of milliseconds, at most ${MAX_PERIOD_MS} (100 years).`,
    );
  }
  return n;
}

/** Creates a token for `userId`; the returned `token` is the only time it is ever visible. */
export async function generateToken(
  sql: Queryable,
  userId: number,
  input: { name?: string | null; period?: unknown },
): Promise<TokenInfo & { token: string }> {
  const ms = parsePeriod(input.period);
  const token = TOKEN_PREFIX + newSecret();
  // One clock for both times, so the listed `period` is exactly the lifetime asked for.
  const now = Date.now();
  const [row] = await sql`
    insert into api_tokens (id, name, prefix, token_hash, user_id, created_at, expires_at)
    values (${randomUUID()}::uuid, ${input.name ?? null}, ${token.slice(0, TOKEN_PREFIX.length + 6)}, ${sha256(token)},
            ${userId}, ${new Date(now)}, ${ms === null ? null : new Date(now + ms)})
    returning *`;
  return { ...toInfo(row), token };
}

/**
 * A listed token as the established configure app reads it (docs/auth.md, "API tokens"): besides our
 * fields, `token` (never the secret: the name, if any, and the stored prefix followed by `...`), `period`
 * (`"never"` or the lifetime in milliseconds, as text) and the creator, as MMGIS lists them.
 */
export interface ListedToken extends TokenInfo {
  token: string;
  period: string;
  created_by_user_id: number;
  created_by_username: string | null;
}

function toListed(row: Record<string, any>): ListedToken {
  const info = toInfo(row);
  const lifetime = row.expires_at
    ? new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()
    : null;
  return {
    ...info,
    token: `${info.name ? `${info.name}: ` : ''}${info.prefix}...`,
    period: lifetime === null ? 'never' : String(lifetime),
    created_by_user_id: Number(row.user_id),
    created_by_username: row.username ?? null,
  };
}

/** Every token, newest first (as MMGIS lists them), with its creator. */
export async function listTokens(sql: Queryable): Promise<ListedToken[]> {
  const rows = await sql`
    select t.*, u.username from api_tokens t left join users u on u.id = t.user_id
    order by t.created_at desc, t.id`;
  return rows.map(toListed);
}

/** Revokes the token `id` (a UUID: the endpoint schema's `format`; 404 if unknown). */
export async function clearToken(sql: Queryable, id: string): Promise<void> {
  const rows = await sql`delete from api_tokens where id = ${id}::uuid returning id`;
  if (!rows.length) throw notFound(`No token with id '${id}'.`);
}

export type TokenCheck = { ok: true; user: User } | { ok: false; reason: 'invalid' | 'expired' };

/** Resolves a Bearer token to its owner, recording its use. */
export async function userForToken(sql: Queryable, token: string): Promise<TokenCheck> {
  const [row] = await sql`
    update api_tokens t set last_used_at = now()
    from users u
    where t.token_hash = ${sha256(token)} and u.id = t.user_id
    returning u.*, t.expires_at as token_expires_at, (t.expires_at is not null and t.expires_at <= now()) as expired`;
  if (!row) return { ok: false, reason: 'invalid' };
  if (row.expired) return { ok: false, reason: 'expired' };
  return { ok: true, user: toUser(row) };
}
