import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';

/** The conversions of a property value a filter compares with (docs/cql2.md, "How a filter runs"). */
export type Conversion = 'number' | 'text' | 'lower' | 'boolean' | 'instant';

const PREFIX: Record<Conversion, string> = {
  number: 'n',
  text: 's',
  lower: 'l',
  boolean: 'b',
  instant: 'i',
};

/**
 * Each property value a filter reads, read once per feature (docs/cql2.md, "How a filter runs"): the jsonb
 * at the property's path once, and each conversion of it (a number under the numeric rule, a time, its
 * text) once, however many comparisons use them. The condition then compares column references:
 *
 *   (select <condition on cql2_v.*> from
 *     (select cql2_j.*, <conversions of cql2_j.jN> from (select <properties #> path> as jN offset 0) cql2_j
 *      offset 0) cql2_v)
 *
 * `offset 0` keeps PostgreSQL from pulling a level up into the next: pulled up, each reference would be
 * replaced by its whole expression again (an OR of 30 arms on one time property read its path 300 times
 * per feature). The names (`cql2_j`, `cql2_v`, `jN`, `nN`, …) are this module's own.
 */
export class PropertyScope {
  private readonly raw = new Map<string, { n: number; sql: Fragment }>();
  private readonly derived = new Map<string, { name: string; sql: Fragment }>();
  private readonly uses = new Map<string, number>();

  constructor(private readonly sql: Queryable) {}

  /** The property `name` (its jsonb read by `read`), as a reference and its number in this scope. */
  value(name: string, read: Fragment): { ref: number; sql: Fragment } {
    let r = this.raw.get(name);
    if (!r) {
      r = { n: this.raw.size + 1, sql: read };
      this.raw.set(name, r);
    }
    this.uses.set(`j${r.n}`, (this.uses.get(`j${r.n}`) ?? 0) + 1);
    return { ref: r.n, sql: sqlIdentifier(this.sql, `cql2_v.j${r.n}`) };
  }

  /** `make` of property number `ref`'s jsonb, computed once per feature: a reference to it. */
  convert(conversion: Conversion, ref: number, make: (raw: Fragment) => Fragment): Fragment {
    const key = `${PREFIX[conversion]}${ref}`;
    this.uses.set(key, (this.uses.get(key) ?? 0) + 1);
    if (!this.derived.has(key))
      this.derived.set(key, { name: key, sql: make(sqlIdentifier(this.sql, `cql2_j.j${ref}`)) });
    return sqlIdentifier(this.sql, `cql2_v.${key}`);
  }

  /**
   * Whether reading once pays for the subquery (measured by bench/cql2Cost.ts: about 4 µs per feature on
   * the embedded database, 1 µs on a server): a value or conversion used more than once, or a conversion
   * whose expression reads its value several times (a number, a time, a boolean). A lone text use (one
   * `s = 'x'`, `LIKE`, `IS NULL`) reads its path once anyway, and stays inline.
   */
  get pays(): boolean {
    if ([...this.uses.values()].some((n) => n > 1)) return true;
    return [...this.derived.keys()].some((k) => k[0] === 'n' || k[0] === 'i' || k[0] === 'b');
  }

  /** `condition` (written on this scope's references) as one scalar subquery of the feature's row. */
  wrap(condition: Fragment): Fragment {
    const sql = this.sql;
    const list = (items: Fragment[]) => items.reduce((acc, p) => sql`${acc}, ${p}`);
    const raws = list([...this.raw.values()].map((r) => sql`${r.sql} as ${sqlIdentifier(sql, `j${r.n}`)}`));
    const reads = sql`(select ${raws} offset 0)`;
    if (this.derived.size === 0) return sql`(select ${condition} from ${reads} cql2_v)`;
    const conversions = list(
      [...this.derived.values()].map((d) => sql`${d.sql} as ${sqlIdentifier(sql, d.name)}`),
    );
    return sql`(select ${condition} from (select cql2_j.*, ${conversions} from ${reads} cql2_j offset 0) cql2_v)`;
  }
}
