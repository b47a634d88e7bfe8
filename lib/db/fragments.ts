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
