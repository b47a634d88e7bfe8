import { randomInt } from 'node:crypto';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const CODE_LENGTH = 7;

/**
 * What `shorten` takes (docs/shortener.md): 1–2048 characters without control characters (a line break
 * would end a header); where it may point is `assertShortenableUrl`'s rule.
 */
export const shortenableUrl = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
} as const;

/** A short code as `expand` and the redirect take it (codes are `[0-9a-z]`, 7 long; older ones up to 16). */
export const shortCode = { type: 'string', minLength: 1, maxLength: 64 } as const;

/** A random code of `[0-9a-z]` (36^7 ≈ 7.8e10 codes), drawn from the CSPRNG. */
export function newCode(length = CODE_LENGTH): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/**
 * Where short links may point (docs/shortener.md): this site (the `Host` the request was sent to) and the
 * origins of `CORS_ORIGINS`. A short link never leads to another host.
 */
export interface Site {
  host: string | undefined;
  origins: string[];
}

/** The site of a request: its `Host` header and the configured `CORS_ORIGINS`. */
export function siteOf(host: string | undefined): Site {
  const origins = setting('CORS_ORIGINS');
  return { host, origins };
}

const ON_SITE =
  "'url' must be a path or query of this site ('/…' or '?…', as the map sends its own address) or an http(s) URL of this site.";

/** A path of this site: one leading `/` (`//host` and `/\host` are other hosts to a browser). */
const isSitePath = (url: string) => url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\');

/** An absolute http(s) URL of `site`, parsed; undefined for anything else. */
function siteUrl(url: string, site: Site): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.username || parsed.password) return undefined;
  const own = site.host !== undefined && parsed.host.toLowerCase() === site.host.toLowerCase();
  return own || site.origins.includes(parsed.origin) ? parsed : undefined;
}

/**
 * Accepts what the established map client sends (its own page address as a query, `?mission=…&…`), a path
 * of this site (`/…`), or an absolute http(s) URL of this site or of a `CORS_ORIGINS` origin (a rule
 * against the request's site: the endpoint's schema, `shortenableUrl`, has bounded the text). Anything
 * else (another host, `javascript:`, `//host`, blank) is a 400 naming `url`. The url is kept as given:
 * `expand` answers it unchanged, as the client rebuilds its page address from it.
 */
export function assertShortenableUrl(url: string, site: Site): string {
  if (url.startsWith('?') || isSitePath(url)) return url;
  if (!siteUrl(url, site)) throw badRequest(ON_SITE);
  return url;
}

/**
 * Where `GET /api/shortener/{code}` sends a browser: the stored url resolved against this site's root
 * (`?mission=…` opens `/?mission=…`, the map page), an absolute url of this site as its path, a
 * `CORS_ORIGINS` url as is. Undefined for a stored url of another host (a link stored before this rule):
 * the redirect refuses it rather than leading elsewhere.
 */
export function redirectTarget(stored: string, site: Site): string | undefined {
  if (stored.startsWith('?')) return `/${stored}`;
  if (isSitePath(stored)) return stored;
  const parsed = siteUrl(stored, site);
  if (!parsed) return undefined;
  const own = site.host !== undefined && parsed.host.toLowerCase() === site.host.toLowerCase();
  return own ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.href;
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

/** The url behind `code`; 404 when unknown. */
export async function expand(sql: Queryable, code: string): Promise<string> {
  const rows = /^[0-9a-z]{1,16}$/.test(code)
    ? await sql`select url from short_urls where code = ${code}`
    : [];
  if (!rows.length) throw notFound(`No short link '${code.slice(0, 40)}' was found.`);
  return rows[0].url as string;
}
