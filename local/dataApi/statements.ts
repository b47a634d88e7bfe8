/**
 * The statement side of the Data API stand-in (local/dataApi/standIn.ts): the Data API's named
 * parameters (`:name`, typed by `typeHint`) as PostgreSQL's positional ones, and its error shape.
 */
import type postgres from 'postgres';

export type Field = Record<string, unknown>;
export type Param = { name: string; value?: Field; typeHint?: string };

const HINTS: Record<string, number> = {
  JSON: 114,
  TIMESTAMP: 1114,
  DATE: 1082,
  TIME: 1083,
  DECIMAL: 1700,
  UUID: 2950,
};
export const INTS = new Set(['int2', 'int4', 'int8', 'oid']);
export const FLOATS = new Set(['float4', 'float8']);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

/** `:name` → `$n` outside quotes and comments (`::` casts stay). */
export function toPositional(text: string, names: Map<string, number>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end < 0 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += text.slice(i, stop);
      i = stop;
    } else if (c === ':' && text[i + 1] === ':') {
      out += '::';
      i += 2;
    } else if (c === ':') {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1));
      const n = m ? names.get(m[0]) : undefined;
      if (m && n) {
        out += `$${n}`;
        i += 1 + m[0].length;
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

export function paramValue(sql: postgres.Sql, p: Param): unknown {
  const v = p.value ?? { isNull: true };
  if (v.isNull) return null;
  const hint = p.typeHint ? HINTS[p.typeHint] : undefined;
  if (v.stringValue !== undefined) return sql.typed(v.stringValue as never, hint ?? 1043);
  if (v.longValue !== undefined) return sql.typed(String(v.longValue) as never, 20);
  if (v.doubleValue !== undefined) return sql.typed(String(v.doubleValue) as never, 701);
  if (v.booleanValue !== undefined) return sql.typed(v.booleanValue as never, 16);
  if (v.blobValue !== undefined) return Buffer.from(String(v.blobValue), 'base64');
  throw new ApiError(400, 'BadRequestException', 'Array parameters are not supported.');
}
