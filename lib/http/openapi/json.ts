/** Small JSON Schema builders for the response shapes (lib/http/openapi/shapes/). */

/** An object schema with these properties, all of them required unless listed in `optional`. */
export function object(properties: Record<string, object>, optional: string[] = []) {
  return {
    type: 'object',
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  } as const;
}

export const string = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const number = { type: 'number' } as const;
export const boolean = { type: 'boolean' } as const;
export const nullable = (schema: { type: string }) => ({ ...schema, type: [schema.type, 'null'] });
/** An ISO 8601 date-time text as the service writes it (`toISOString()`). */
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const arrayOf = (items: object) => ({ type: 'array', items }) as const;
