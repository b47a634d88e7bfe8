import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { badRequest } from '#lib/errors.ts';

/** A table as the service keeps it: the header in file order and every value as text. */
export interface Table {
  columns: string[];
  rows: string[][];
}

export const MAX_COLUMNS = 1000;

/** 400 unless `columns` are non-empty, distinct and at most 1000. */
export function assertColumns(columns: string[], where: string): string[] {
  if (columns.length === 0) throw badRequest(`${where}: the header has no columns.`);
  if (columns.length > MAX_COLUMNS) throw badRequest(`${where}: more than ${MAX_COLUMNS} columns.`);
  const seen = new Set<string>();
  columns.forEach((c, i) => {
    if (c === '') throw badRequest(`${where}: column ${i + 1} of the header has no name.`);
    if (seen.has(c)) throw badRequest(`${where}: the column name '${c}' appears twice in the header.`);
    seen.add(c);
  });
  return columns;
}

/**
 * Parses RFC 4180 CSV with csv-parse: quoted fields with embedded commas, quotes (`""`) and newlines,
 * CRLF or LF line ends, an optional UTF-8 BOM. The first record is the header; every record must have
 * as many fields as the header. Values are kept exactly (no trimming, no type guessing). A malformed
 * file is a 400 whose message names the line.
 */
export function parseCsv(text: string): Table {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: false,
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as string[][];
  } catch (e) {
    if (e instanceof CsvError) {
      const line = (e as CsvError & { lines?: number }).lines;
      throw badRequest(
        `The CSV is malformed at line ${line ?? '?'}: ${e.message.replace(/^[^:]*Error: /, '')}`,
        { line },
      );
    }
    throw e;
  }
  if (records.length === 0) throw badRequest('The CSV is empty: the first line must be the header.');
  const [columns, ...rows] = records;
  return { columns: assertColumns(columns, 'CSV line 1'), rows };
}

/** First characters a spreadsheet reads as the start of a formula (with their full-width forms). */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A plain negative number (`-3`, `-0.5`, `-1e3`): a spreadsheet reads it as a number, never a formula. */
const NEGATIVE_NUMBER = /^-(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A cell as written to a CSV download (docs/datasets.md, "Formula injection"): one that a spreadsheet would
 * run as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`
 * (OWASP's CSV injection rule); a plain negative number is left as it is.
 */
export function neutralizeFormula(cell: string): string {
  return FORMULA_START.test(cell) && !NEGATIVE_NUMBER.test(cell) ? `'${cell}` : cell;
}

/**
 * The table as RFC 4180 CSV (CRLF line ends, fields quoted where needed) for a spreadsheet: cells that
 * would run as formulas are prefixed by `neutralizeFormula` and quoted; parseCsv gives every other cell
 * back exactly.
 */
export function toCsv(table: Table): string {
  const cells = (row: string[]) => row.map(neutralizeFormula);
  return stringify([cells(table.columns), ...table.rows.map(cells)], {
    record_delimiter: 'windows',
    // Quote any field holding a line break (csv-stringify alone quotes only the record delimiter), and
    // every neutralized formula (OWASP: the prefixed cell in double quotes).
    quoted_match: [/[\r\n]/, /^'[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/],
  });
}

/** A cell of MMGIS's JSON rows as text: strings as they are, null/undefined empty, others as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A dataset's name (docs/datasets.md): 1–128 letters, digits, `_`, `-`, `.` (the geodataset rule). */
export const datasetName = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9_.-]+$',
} as const;

/** `recreate`'s `header`: the columns in order (null: the rows' keys in order of first appearance). */
export const recreateHeader = {
  type: ['array', 'null'],
  minItems: 1,
  maxItems: MAX_COLUMNS,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 1024 },
} as const;

/** `recreate`'s `csv`: the rows as objects (request bodies, at most 6 MB, bound their number first). */
export const recreateCsv = {
  type: 'array',
  maxItems: 1_000_000,
  items: {
    type: 'object',
    maxProperties: MAX_COLUMNS,
    propertyNames: { maxLength: 1024 },
    additionalProperties: {
      type: ['string', 'number', 'boolean', 'null', 'object', 'array'],
      maxLength: 1_048_576,
      minimum: -Number.MAX_VALUE,
      maximum: Number.MAX_VALUE,
      maxItems: 1_000_000,
    },
  },
} as const;

/**
 * MMGIS's `recreate` form as a table: `header`, when given, fixes the columns and their order, else the
 * rows' keys in order of first appearance (at most 1000, none empty). Cells are `cellText`; a column a row
 * lacks is empty (own keys only: a `constructor` column is not Object's constructor).
 */
export function tableFromObjects(
  list: Record<string, unknown>[],
  header: readonly string[] | null | undefined,
): Table {
  let columns: string[];
  if (header) columns = [...header];
  else {
    const seen = new Set<string>();
    for (const r of list) for (const k of Object.keys(r)) seen.add(k);
    columns = assertColumns([...seen], "The keys of 'csv'");
  }
  const rows = list.map((row) => columns.map((c) => cellText(Object.hasOwn(row, c) ? row[c] : undefined)));
  return { columns, rows };
}
