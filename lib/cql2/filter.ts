import { badRequest } from '#lib/errors.ts';
import type { Expr } from './ast.ts';
import { type FilterCrs, parseFilterCrs } from './crs.ts';
import { Cql2SyntaxError } from './errors.ts';
import { parseCql2Json } from './parseJson.ts';
import { parseCql2Text } from './parseText.ts';
import { checkVertices } from './spatial.ts';

export type FilterLang = 'cql2-text' | 'cql2-json';

/** A request's CQL2 filter, parsed (pure); `cql2ReadFilter` turns it into a dataset's read condition. */
export interface Cql2Filter {
  ast: Expr;
  lang: FilterLang;
  crs: FilterCrs;
}

/** Parses cql2-text or cql2-json into the one AST; 400 naming `filter` and the position of the error. */
export function parseCql2(input: unknown, lang: FilterLang): Expr {
  try {
    if (lang === 'cql2-json') return parseCql2Json(input);
    if (typeof input !== 'string') throw badRequest(`'filter' must be a string of cql2-text.`);
    return parseCql2Text(input);
  } catch (e) {
    if (e instanceof Cql2SyntaxError) throw e.toHttp(lang);
    throw e;
  }
}

/**
 * `filter`, `filter-lang` (cql2-text by default; cql2-json when `filter` is a JSON object in a POST body)
 * and `filter-crs` of a request (docs/cql2.md); undefined without `filter`.
 */
export function parseFilterParams(query: Record<string, unknown>): Cql2Filter | undefined {
  const raw = query.filter;
  const langParam = query['filter-lang'];
  const crsParam = query['filter-crs'];
  if (raw === undefined || raw === null || raw === '') {
    if (langParam !== undefined && langParam !== '' && langParam !== 'cql2-text' && langParam !== 'cql2-json')
      throw badRequest(`'filter-lang' must be cql2-text or cql2-json.`);
    return undefined;
  }
  let lang: FilterLang;
  if (langParam === undefined || langParam === null || langParam === '')
    lang = typeof raw === 'object' ? 'cql2-json' : 'cql2-text';
  else if (langParam === 'cql2-text' || langParam === 'cql2-json') lang = langParam;
  else
    throw badRequest(
      `'filter-lang' must be cql2-text or cql2-json (got ${JSON.stringify(langParam)?.slice(0, 40)}).`,
    );
  if (Array.isArray(raw) && lang === 'cql2-text') throw badRequest(`'filter' must be given once.`);
  const ast = parseCql2(raw, lang);
  checkVertices(ast);
  return { ast, lang, crs: parseFilterCrs(crsParam) };
}
