/**
 * The OpenAPI 3.1 document of lib/http/openapi/document.ts rendered as OpenAPI 3.0 (docs/ogc.md,
 * "API definition"): the OGC API – Features oas30 conformance class and clients such as GDAL read 3.0.
 * JSON Schema 2020-12 keywords become their 3.0 Schema Object spelling:
 * - `type: [T, 'null']` → `type: T, nullable: true` (several non-null types: `anyOf` of them);
 * - `const: v` → `enum: [v]`; an `enum` holding null → `nullable: true`;
 * - numeric `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum` with the boolean form;
 * - `examples: [...]` → `example` (the first);
 * - `contentMediaType`/`contentEncoding` → `format: binary` (or `byte` for base64);
 * - keywords 3.0 does not have (`$schema`, `$id`, `$defs`, `prefixItems`, `if`/`then`/`else`,
 *   `dependentRequired`, `dependentSchemas`, `unevaluatedProperties`, `unevaluatedItems`,
 *   `patternProperties`, `propertyNames`, `contains`, `minContains`, `maxContains`) are dropped.
 * The input is not changed.
 */

type Json = Record<string, unknown>;

const DROPPED = new Set([
  '$schema',
  '$id',
  '$defs',
  '$comment',
  'prefixItems',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'patternProperties',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'examples',
  'const',
]);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One JSON Schema (2020-12, as OpenAPI 3.1 uses it) as an OpenAPI 3.0 Schema Object. */
export function schemaTo30(schema: unknown): unknown {
  if (!isObject(schema)) return schema === true ? {} : schema === false ? { not: {} } : schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaTo30(v)]));
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map(schemaTo30);
    } else if (key === 'items') {
      out.items = Array.isArray(value) ? schemaTo30(value[0] ?? {}) : schemaTo30(value);
    } else if (key === 'additionalProperties' || key === 'not') {
      out[key] = typeof value === 'boolean' && key === 'additionalProperties' ? value : schemaTo30(value);
    } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
      if (typeof value === 'number') {
        out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
        out[key] = true;
      } else out[key] = value;
    } else if (key === 'if' || key === 'then' || key === 'else') {
      // 3.0 has no conditionals: a value matching `if` then `then`, else `else`, is one of the two.
    } else if (key !== 'type') {
      out[key] = value;
    }
  }
  if ('then' in schema || 'else' in schema) {
    const branches = [schema.then, schema.else].filter((b) => b !== undefined).map(schemaTo30);
    const either = { anyOf: branches };
    if (out.anyOf === undefined) Object.assign(out, either);
    else out.allOf = [...((out.allOf as unknown[]) ?? []), either];
  }
  if ('const' in schema) out.enum = [schema.const];
  if (Array.isArray(schema.examples) && schema.examples.length && out.example === undefined)
    out.example = schema.examples[0];
  if (schema.contentMediaType !== undefined || schema.contentEncoding !== undefined) {
    out.type = 'string';
    out.format = schema.contentEncoding === 'base64' ? 'byte' : 'binary';
  }
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    const real = types.filter((t) => t !== 'null');
    if (types.includes('null')) out.nullable = true;
    if (real.length === 1) out.type = real[0];
    else if (real.length > 1) {
      const { nullable, ...rest } = out;
      return { ...(nullable ? { nullable } : {}), anyOf: real.map((t) => ({ ...rest, type: t })) };
    } else if (types.includes('null') && out.enum === undefined) out.enum = [null];
  }
  if (Array.isArray(out.enum) && out.enum.includes(null)) out.nullable = true;
  return out;
}

/** The schemas inside a Media Type, Parameter or Header object (and its `content`). */
function withSchemas(obj: unknown): unknown {
  if (!isObject(obj)) return obj;
  const out: Json = { ...obj };
  if ('schema' in out) out.schema = schemaTo30(out.schema);
  if (isObject(out.content)) {
    out.content = Object.fromEntries(Object.entries(out.content).map(([t, m]) => [t, withSchemas(m)]));
  }
  if (Array.isArray(out.examples)) {
    out.example = out.examples[0];
    delete out.examples;
  }
  return out;
}

function operationTo30(op: unknown): unknown {
  if (!isObject(op)) return op;
  const out: Json = { ...op };
  if (Array.isArray(out.parameters)) out.parameters = out.parameters.map(withSchemas);
  if (out.requestBody) out.requestBody = withSchemas(out.requestBody);
  if (isObject(out.responses)) {
    out.responses = Object.fromEntries(
      Object.entries(out.responses).map(([status, r]) => {
        const resp = withSchemas(r) as Json;
        if (isObject(resp.headers)) {
          resp.headers = Object.fromEntries(
            Object.entries(resp.headers).map(([h, v]) => [h, withSchemas(v)]),
          );
        }
        return [status, resp];
      }),
    );
  }
  return out;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The whole document as OpenAPI 3.0.3. */
export function openApi30(doc: Json): Json {
  const { jsonSchemaDialect: _dialect, webhooks: _webhooks, openapi: _version, ...rest } = doc;
  const out: Json = { openapi: '3.0.3', ...rest };
  if (isObject(doc.info)) {
    const { summary: _summary, license, ...info } = doc.info;
    out.info = isObject(license) ? { ...info, license: { name: license.name, url: license.url } } : info;
  }
  if (isObject(doc.paths)) {
    out.paths = Object.fromEntries(
      Object.entries(doc.paths).map(([path, item]) => {
        if (!isObject(item)) return [path, item];
        const converted: Json = {};
        for (const [k, v] of Object.entries(item)) {
          converted[k] = METHODS.has(k)
            ? operationTo30(v)
            : k === 'parameters' && Array.isArray(v)
              ? v.map(withSchemas)
              : v;
        }
        return [path, converted];
      }),
    );
  }
  if (isObject(doc.components)) {
    const c: Json = { ...doc.components };
    if (isObject(c.schemas))
      c.schemas = Object.fromEntries(Object.entries(c.schemas).map(([k, s]) => [k, schemaTo30(s)]));
    if (isObject(c.parameters))
      c.parameters = Object.fromEntries(Object.entries(c.parameters).map(([k, p]) => [k, withSchemas(p)]));
    out.components = c;
  }
  return out;
}
