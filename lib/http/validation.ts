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

type Schema = {
  properties?: Record<string, object>;
  patternProperties?: object;
  additionalProperties?: unknown;
  type?: unknown;
  items?: unknown;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  if?: Schema;
  then?: Schema;
  else?: Schema;
};

const branches = (s: Schema): Schema[] => [
  ...(s.allOf ?? []),
  ...(s.anyOf ?? []),
  ...(s.oneOf ?? []),
  ...[s.if, s.then, s.else].filter((b): b is Schema => !!b && typeof b === 'object'),
];

/**
 * The top-level field names an object schema declares (its `properties`, and those of its
 * `allOf`/`anyOf`/`oneOf`/`if`/`then`/`else` branches), or null when it declares a free-form object (no
 * `properties` anywhere, `patternProperties`, or an `additionalProperties` other than false): every field
 * is then the endpoint's to read. The validator hands the endpoint only these (docs/input.md).
 */
export function declaredNames(schema: object | undefined): Set<string> | null {
  const names = new Set<string>();
  let any = false;
  const todo: Schema[] = schema ? [schema as Schema] : [];
  while (todo.length) {
    const s = todo.pop()!;
    if (s.patternProperties) return null;
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) return null;
    if (s.properties) {
      any = true;
      for (const k of Object.keys(s.properties)) names.add(k);
    }
    todo.push(...branches(s));
  }
  return any ? names : null;
}

/** Whether `name` is declared (at the top level of `schema`) as an array, or as an array or a scalar. */
export function isArraySchema(schema: object | undefined, name: string): boolean {
  const todo: Schema[] = schema ? [schema as Schema] : [];
  while (todo.length) {
    const s = todo.pop()!;
    const p = s.properties?.[name] as Schema | undefined;
    if (p) {
      const types = Array.isArray(p.type) ? p.type : [p.type];
      if (types.includes('array') || p.items !== undefined) return true;
      if ([...(p.anyOf ?? []), ...(p.oneOf ?? [])].some((b) => b.type === 'array')) return true;
    }
    todo.push(...branches(s));
  }
  return false;
}

/**
 * The rule an error broke, as the schema states it (`maxLength 64`), where ajv's message does not already
 * say it (its `type`, `pattern`, `format` and `enum` messages do).
 */
const rules: Record<string, (params: Record<string, unknown>) => string> = {
  maxLength: (p) => `maxLength ${p.limit}`,
  minLength: (p) => `minLength ${p.limit}`,
  maxItems: (p) => `maxItems ${p.limit}`,
  minItems: (p) => `minItems ${p.limit}`,
  maxProperties: (p) => `maxProperties ${p.limit}`,
  minProperties: (p) => `minProperties ${p.limit}`,
  minimum: (p) => `minimum ${p.limit}`,
  maximum: (p) => `maximum ${p.limit}`,
  exclusiveMinimum: (p) => `exclusiveMinimum ${p.limit}`,
  exclusiveMaximum: (p) => `exclusiveMaximum ${p.limit}`,
  multipleOf: (p) => `multipleOf ${p.multipleOf}`,
  const: (p) => `const ${JSON.stringify(p.allowedValue)}`,
};

/**
 * One sentence naming the field at fault and the rule it broke, e.g. "Body field 'layer' must NOT have
 * more than 128 characters (maxLength 128)." (the one formatter of every validation failure).
 */
export function describeError(part: keyof typeof where, err: ErrorObject): string {
  const path = err.instancePath
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty: string }).missingProperty;
    const full = path ? `${path}.${missing}` : missing;
    return `Missing required ${where[part]} '${full}'.`;
  }
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty: string }).additionalProperty;
    return `Unknown ${where[part]} '${path ? `${path}.` : ''}${extra}'.`;
  }
  let msg = err.message ?? 'is invalid';
  if (err.keyword === 'uniqueItems') {
    const { i, j } = err.params as { i: number; j: number };
    msg = `must NOT have duplicate items (items ${Math.min(i, j)} and ${Math.max(i, j)} are equal; uniqueItems)`;
  }
  if (err.keyword === 'enum')
    msg += `: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  const rule = rules[err.keyword]?.(err.params as Record<string, unknown>);
  if (rule) msg += ` (${rule})`;
  if (!path) return part === 'body' ? `The request body ${msg}.` : `The ${part} ${msg}.`;
  return `${where[part][0].toUpperCase()}${where[part].slice(1)} '${path}' ${msg}.`;
}
