import type { APIGatewayProxyEvent } from 'aws-lambda';
import qs from 'qs';
import { header } from '#lib/auth/principal.ts';
import { HttpError } from '#lib/errors.ts';

/**
 * The `application/x-www-form-urlencoded` half of `body: 'json-or-form'` (docs/draw.md): jQuery's
 * `$.param` style (`ids[]=1&ids[]=2`, `a[b][c]=d`) parsed by `qs`, the library Express uses for the same
 * bodies. Values stay strings, as on the wire; endpoints that accept forms coerce their own fields.
 * Returns false (and leaves the event alone) when the request is not a form, so JSON parsing runs.
 */
export function parseFormBody(event: APIGatewayProxyEvent): boolean {
  const type = header(event.headers, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return false;
  const text =
    event.body == null
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  try {
    // Limits large enough for a drawn polygon posted as nested fields, small enough to bound the work.
    event.body = qs.parse(text, {
      depth: 20,
      arrayLimit: 100_000,
      parameterLimit: 100_000,
      allowPrototypes: false,
    }) as unknown as string;
  } catch (e) {
    throw new HttpError(400, `The form body could not be parsed: ${(e as Error).message}.`);
  }
  return true;
}

/** The body schema of an endpoint taking a JSON object or a form: its fields are checked by the endpoint. */
export const fieldsBody = { type: 'object' } as const;

/** A `fieldsBody` as its fields (a form's values are strings). */
export const fieldsOf = (body: unknown) => body as Record<string, unknown>;

/** The options of an endpoint taking a JSON object or a form: `endpoint({ auth, ...jsonOrForm, ... })`. */
export const jsonOrForm = { body: 'json-or-form', schema: { body: fieldsBody } } as const;
