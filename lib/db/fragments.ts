import type postgres from 'postgres';
import type { Queryable } from './index.ts';

/**
 * A piece of SQL to splice into a tagged template (values bound, identifiers quoted), as the builders of
 * lib/geodatasets return and take them. Both drivers (postgres.js and the Data API's) inline an unawaited
 * query as a fragment; it is never awaited on its own, so its row type is left open.
 */
export type Fragment = postgres.PendingQuery<any>;

/**
 * A quoted identifier (dots separate a qualified name: `t.id`) as a Fragment. `sql(name)` alone is a
 * helper that only a template accepts; wrapping it gives builders one type to pass around, without a cast.
 * The name comes from our own code or catalog (`safeTable`), never from request text.
 */
export function sqlIdentifier(sql: Queryable, name: string): Fragment {
  return sql`${sql(name)}`;
}

/** RFC 3339 `full-date`: checked again where it is bound, whatever parsed it (docs/connections.md). */
const FULL_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
/** RFC 3339 `date-time`: hours 00-23, minutes 00-59, seconds 00-60 (a leap second), offsets ±00:00-23:59. */
const DATE_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * An instant as SQL: the text is bound as `text` and cast by the database, never handed to the driver's
 * `timestamptz` serializer (postgres.js serializes through `new Date(x).toISOString()`, which throws on
 * text JavaScript cannot read, such as a leap second; docs/connections.md, "A query that fails before it is
 * sent"). PostgreSQL reads a leap second as the next minute's first second. The caller validates the
 * text and refuses it with a 400 naming its field; a text that still is no RFC 3339 date-time throws here,
 * before any query is built.
 */
export function timestampSql(sql: Queryable, rfc3339: string): Fragment {
  if (!DATE_TIME.test(rfc3339)) throw new TypeError(`not an RFC 3339 date-time: ${rfc3339.slice(0, 40)}`);
  return sql`(${rfc3339}::text)::timestamptz`;
}

/** A `full-date` as the instant its UTC day starts at, bound as text like `timestampSql`. */
export function dateSql(sql: Queryable, fullDate: string): Fragment {
  if (!FULL_DATE.test(fullDate)) throw new TypeError(`not an RFC 3339 full-date: ${fullDate.slice(0, 40)}`);
  return sql`((${fullDate}::text)::date::timestamp at time zone 'UTC')`;
}
