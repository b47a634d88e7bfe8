import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { UUID } from '#lib/formats.ts';

export interface InputSchemas {
  query?: object;
  body?: object;
  path?: object;
}

// `array`: besides strings to numbers/booleans/null, a single value where a list is declared becomes a
// one-item list (a form's `ids=1`, jQuery's encoding of a one-item array being `ids[]=1`).
const coercing = new Ajv({ allErrors: false, coerceTypes: 'array', useDefaults: true, strict: false });
const strictTypes = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: true, strict: false });
for (const ajv of [coercing, strictTypes]) {
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addFormat('uuid', UUID);
}

export interface CompiledSchemas {
  query?: ValidateFunction;
  body?: ValidateFunction;
  /**
   * The body schema for a form body (its values are strings on the wire, coerced like the query's),
   * compiled on first use: most endpoints never see a form.
   */
  formBody?: () => ValidateFunction;
  path?: ValidateFunction;
}

/**
 * Compiles once per handler at cold start. Query, path and form values are strings on the wire: coerced
 * to the declared types; a JSON body must have them already.
 */
export function compileSchemas(s: InputSchemas): CompiledSchemas {
  return {
    query: s.query ? coercing.compile(s.query) : undefined,
    path: s.path ? coercing.compile(s.path) : undefined,
    body: s.body ? strictTypes.compile(s.body) : undefined,
    formBody: s.body ? once(() => coercing.compile(s.body!)) : undefined,
  };
}

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

const where = { query: 'query parameter', path: 'URL segment', body: 'body field' } as const;

/** One sentence naming the field at fault, e.g. "body field 'layer' must be string". */
export function describeError(part: keyof typeof where, err: ErrorObject): string {
  const path = err.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty: string }).missingProperty;
    const full = path ? `${path}.${missing}` : missing;
    return `Missing required ${where[part]} '${full}'.`;
  }
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty: string }).additionalProperty;
    return `Unknown ${where[part]} '${path ? `${path}.` : ''}${extra}'.`;
  }
  if (!path) return part === 'body' ? `The request body ${err.message}.` : `The ${part} ${err.message}.`;
  let msg = err.message ?? 'is invalid';
  if (err.keyword === 'enum')
    msg += `: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${where[part][0].toUpperCase()}${where[part].slice(1)} '${path}' ${msg}.`;
}
