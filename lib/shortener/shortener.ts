import { randomInt } from 'node:crypto';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import { hasControl } from '#lib/storage/text.ts';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const CODE_LENGTH = 7;
const MAX_URL = 2048;

/** A random code of `[0-9a-z]` (36^7 ≈ 7.8e10 codes), drawn from the CSPRNG. */
export function newCode(length = CODE_LENGTH): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/**
 * Accepts an `http(s)` URL or a path on this site (starting with a single `/`), at most 2048
 * characters; anything else (`javascript:`, `//evil.example`, empty) is a 400 naming `url`.
 */
export function assertShortenableUrl(url: unknown): string {
  if (typeof url !== 'string' || url.trim() === '') throw badRequest("Missing required body field 'url'.");
  if (url.length > MAX_URL) throw badRequest(`'url' is longer than ${MAX_URL} characters.`);
  if (hasControl(url)) throw badRequest("'url' contains control characters.");
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest("'url' must be an http(s) URL or a path starting with '/'.");
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw badRequest("'url' must be an http(s) URL or a path starting with '/'.");
  }
  return url;
}

/** The code of `url`, made on first use; the same url always gets the same code. */
export async function shorten(sql: Queryable, url: string, creator: string | null): Promise<string> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const code = newCode();
    // A new url inserts; a known url (or a race with the same url) returns the stored code.
    const rows = await sql`
      with ins as (
        insert into short_urls (code, url, creator) values (${code}, ${url}, ${creator})
        on conflict do nothing
        returning code)
      select code from ins
      union all
      select code from short_urls where url = ${url}
      limit 1`;
    if (rows.length) return rows[0].code as string;
    // The random code was taken by another url: draw again.
  }
  throw new Error('could not draw a free short code');
}

export function assertCode(code: unknown, field = 'short'): string {
  if (typeof code !== 'string' || code === '') throw badRequest(`Missing required body field '${field}'.`);
  return code;
}

/** The url behind `code`; 404 when unknown. */
export async function expand(sql: Queryable, code: string): Promise<string> {
  const rows = /^[0-9a-z]{1,16}$/.test(code)
    ? await sql`select url from short_urls where code = ${code}`
    : [];
  if (!rows.length) throw notFound(`No short link '${code.slice(0, 40)}' was found.`);
  return rows[0].url as string;
}
