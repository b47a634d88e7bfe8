import type { APIGatewayProxyEvent } from 'aws-lambda';
import qs from 'qs';
import { badRequest } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import { header } from './headers.ts';

/** `application/x-www-form-urlencoded`, with or without a charset. */
export function isFormType(contentType: string | undefined): boolean {
  return /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType ?? '');
}

/**
 * Most fields of one form (`MAX_FORM_PARAMETERS`, default 1000: the established MMGIS server's body
 * parser refuses more too). qs merges `a[]=` entries one by one, at a cost that grows with the square of
 * their number (40,000 of them took 20 s of CPU): the cap keeps a form's parse to milliseconds.
 */
export function maxFormParameters(): number {
  return setting('MAX_FORM_PARAMETERS');
}

/** Largest form body in bytes (`MAX_FORM_BYTES`, default 4 MiB); larger JSON bodies are still accepted. */
export function maxFormBytes(): number {
  return setting('MAX_FORM_BYTES');
}

/**
 * Parses a form body the way the established MMGIS server (Express body-parser, `extended: true`) does,
 * with `qs`: jQuery's `$.param` style (`ids[]=1&ids[]=2`, `a[b][c]=d`), values as strings (the endpoint's
 * schema coerces them, lib/http/middleware/validator.ts). Bounded: more than `maxFormParameters()` fields,
 * an array longer than that, keys nested deeper than 20 or a body over `maxFormBytes()`: 400.
 */
export function parseForm(text: string): Record<string, unknown> {
  const limit = maxFormBytes();
  if (Buffer.byteLength(text) > limit) {
    throw badRequest(`The form body is larger than ${limit} bytes; send a larger body as JSON.`);
  }
  const parameters = maxFormParameters();
  try {
    return qs.parse(text, {
      depth: 20,
      strictDepth: true,
      arrayLimit: parameters,
      parameterLimit: parameters,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
    });
  } catch (e) {
    throw badRequest(`The form body could not be parsed: ${(e as Error).message}`);
  }
}

/**
 * Replaces `event.body` by its parsed fields when the request is a form (`parseForm`) and answers true;
 * answers false (and leaves the event alone) otherwise.
 */
export function parseFormBody(event: APIGatewayProxyEvent): boolean {
  if (!isFormType(header(event.headers, 'content-type'))) return false;
  const text =
    event.body == null
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  event.body = parseForm(text) as unknown as string;
  return true;
}

/** The body schema of an endpoint taking a JSON object or a form: its fields are checked by the endpoint. */
export const fieldsBody = { type: 'object' } as const;

/** A `fieldsBody` as its fields (a form's values are strings). */
export const fieldsOf = (body: unknown) => body as Record<string, unknown>;

/**
 * The options of an endpoint that reads its fields by hand: `endpoint({ auth, ...jsonOrForm, ... })`.
 * (Every endpoint takes JSON or a form; `body: 'json-or-form'` is the same as the default `json`.)
 */
export const jsonOrForm = { body: 'json-or-form', schema: { body: fieldsBody } } as const;
