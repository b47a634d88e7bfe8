import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';

/**
 * The custom functions a filter may call (CQL2's Functions class; docs/cql2.md, "Functions"), listed by
 * `GET /api/ogc/functions` in the standard's shape. Each takes and returns scalar values of the standard's
 * types; its SQL is written out here (no text of a filter reaches SQL), and a NULL argument gives NULL.
 * Names are matched case-insensitively.
 */

export type FunctionType = 'string' | 'number' | 'integer' | 'datetime' | 'geometry' | 'boolean';

export interface Cql2Function {
  name: string;
  description: string;
  args: { title: string; type: FunctionType[] }[];
  returns: FunctionType[];
  /** The SQL of a call, its arguments converted to the types of `args` (number → float8, string → text). */
  sql(sql: Queryable, args: Fragment[]): Fragment;
}

const num = (title: string) => ({ title, type: ['number'] as FunctionType[] });
const str = (title: string) => ({ title, type: ['string'] as FunctionType[] });

export const CQL2_FUNCTIONS: Cql2Function[] = [
  {
    name: 'abs',
    description: 'The absolute value of a number.',
    args: [num('value')],
    returns: ['number'],
    sql: (sql, [a]) => sql`abs(${a})`,
  },
  {
    name: 'ceil',
    description: 'The smallest integer not less than a number.',
    args: [num('value')],
    returns: ['integer'],
    sql: (sql, [a]) => sql`ceil(${a})`,
  },
  {
    name: 'floor',
    description: 'The largest integer not greater than a number.',
    args: [num('value')],
    returns: ['integer'],
    sql: (sql, [a]) => sql`floor(${a})`,
  },
  {
    name: 'round',
    description: 'A number rounded to the nearest integer (halves away from zero).',
    args: [num('value')],
    returns: ['integer'],
    sql: (sql, [a]) => sql`round(${a}::numeric)::float8`,
  },
  {
    name: 'lower',
    description: 'A string in lower case (as CASEI).',
    args: [str('value')],
    returns: ['string'],
    sql: (sql, [a]) => sql`lower(${a})`,
  },
  {
    name: 'upper',
    description: 'A string in upper case.',
    args: [str('value')],
    returns: ['string'],
    sql: (sql, [a]) => sql`upper(${a})`,
  },
  {
    name: 'length',
    description: 'The number of characters of a string.',
    args: [str('value')],
    returns: ['integer'],
    sql: (sql, [a]) => sql`char_length(${a})::float8`,
  },
  {
    name: 'trim',
    description: 'A string without its leading and trailing spaces.',
    args: [str('value')],
    returns: ['string'],
    sql: (sql, [a]) => sql`btrim(${a})`,
  },
];

const BY_NAME = new Map(CQL2_FUNCTIONS.map((f) => [f.name, f]));

/** The function of that name (any case), or undefined. */
export function cql2Function(name: string): Cql2Function | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/** The `/functions` document (the standard's `functions.yml` schema). */
export function functionsDocument(): { functions: Record<string, unknown>[] } {
  return {
    functions: CQL2_FUNCTIONS.map((f) => ({
      name: f.name,
      description: f.description,
      args: f.args,
      returns: f.returns,
    })),
  };
}

const TYPES = ['string', 'number', 'integer', 'datetime', 'geometry', 'boolean'];

/** The answer's JSON Schema: the standard's `functions.yml` (`/req/functions/get-functions-response-json`). */
export const FUNCTIONS_SCHEMA = {
  type: 'object',
  required: ['functions'],
  properties: {
    functions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'returns'],
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          metadataUrl: { type: 'string', format: 'uri-reference' },
          args: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type'],
              properties: {
                title: { type: 'string' },
                description: { type: 'string' },
                type: { type: 'array', items: { type: 'string', enum: TYPES } },
              },
            },
          },
          returns: { type: 'array', items: { type: 'string', enum: TYPES } },
        },
      },
    },
  },
} as const;
