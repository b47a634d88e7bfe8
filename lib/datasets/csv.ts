import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { badRequest } from '#lib/errors.ts';

/** A table as the service keeps it: the header in file order and every value as text. */
export interface Table {
  columns: string[];
  rows: string[][];
}

const MAX_COLUMNS = 1000;

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

/** The table as RFC 4180 CSV (CRLF line ends, fields quoted where needed); parseCsv gives it back. */
export function toCsv(table: Table): string {
  return stringify([table.columns, ...table.rows], {
    record_delimiter: 'windows',
    // Quote any field holding a line break (csv-stringify alone quotes only the record delimiter).
    quoted_match: /[\r\n]/,
  });
}

/** A cell of MMGIS's JSON rows as text: strings as they are, null/undefined empty, others as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * MMGIS's `recreate` form: `csv` is an array of row objects (or a string holding that JSON); `header`,
 * when given, fixes the columns and their order, else the keys in order of first appearance.
 */
export function tableFromObjects(csv: unknown, header: unknown): Table {
  let list = csv;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      throw badRequest("'csv' must be an array of row objects or a string holding one.");
    }
  }
  if (!Array.isArray(list))
    throw badRequest("'csv' must be an array of row objects or a string holding one.");
  let hdr = header;
  if (typeof hdr === 'string') {
    try {
      hdr = JSON.parse(hdr);
    } catch {
      throw badRequest("'header' must be a list of column names.");
    }
  }
  let columns: string[];
  if (hdr === undefined || hdr === null) {
    const seen = new Set<string>();
    for (const r of list) if (r && typeof r === 'object') for (const k of Object.keys(r)) seen.add(k);
    columns = [...seen];
  } else if (Array.isArray(hdr) && hdr.every((h) => typeof h === 'string')) {
    columns = hdr as string[];
  } else {
    throw badRequest("'header' must be a list of column names.");
  }
  assertColumns(columns, "'header'");
  const rows = list.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw badRequest(`'csv[${i}]' must be an object.`);
    const row = r as Record<string, unknown>;
    return columns.map((c) => cellText(row[c]));
  });
  return { columns, rows };
}
