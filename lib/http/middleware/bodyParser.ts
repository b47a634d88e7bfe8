import httpJsonBodyParser from '@middy/http-json-body-parser';
import { badRequest, HttpError } from '#lib/errors.ts';
import { isFormType, parseForm } from '../formBody.ts';
import { header } from '../headers.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/**
 * How an endpoint reads its body: `json` (default) takes a JSON body (`application/json` or another
 * `+json` type) or a form (`application/x-www-form-urlencoded`, lib/http/formBody.ts), any other type
 * with a body is a 415; `raw` hands the text over untouched (`rawBody`), whatever its type.
 * `json-or-form` is the same as `json` (the name endpoints that read form fields by hand were given).
 */
export type BodyKind = 'json' | 'raw' | 'json-or-form';

const parsers: Record<BodyKind, () => EndpointMiddleware> = {
  json: jsonOrFormBody,
  raw: rawBody,
  'json-or-form': jsonOrFormBody,
};

export function bodyParser({ kind = 'json' }: { kind?: BodyKind } = {}): EndpointMiddleware {
  return parsers[kind]();
}

const isJsonType = (type: string) => /^\s*application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type);

function bodyText(request: EndpointRequest): string {
  const { body, isBase64Encoded } = request.event;
  if (typeof body !== 'string') return '';
  return isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/**
 * A JSON body (parsed by `@middy/http-json-body-parser`; malformed → 400 quoting the reason) or a form
 * (`parseForm`, values coerced later by the endpoint's schema: `context.bodyEncoding` says which). An
 * empty JSON body is no body; an empty form is a form without fields. A body of another Content-Type
 * (`text/plain`, none, ...) is a 415: a cross-site page can send those without the browser asking first.
 */
function jsonOrFormBody(): EndpointMiddleware {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<
    typeof httpJsonBodyParser
  >[0]);
  const jsonOrFormBefore = async (request: EndpointRequest) => {
    const type = header(request.event.headers, 'content-type') ?? '';
    request.context.bodyEncoding = undefined;
    if (isFormType(type)) {
      request.event.body = parseForm(bodyText(request)) as unknown as string;
      request.context.bodyEncoding = 'form';
      return;
    }
    if (bodyText(request).trim() === '') {
      request.event.body = null;
      return;
    }
    if (!isJsonType(type)) {
      throw new HttpError(
        415,
        `Unsupported Content-Type ${JSON.stringify(type.slice(0, 100) || '(none)')}: send JSON ` +
          '(application/json) or a form (application/x-www-form-urlencoded).',
      );
    }
    try {
      await parser.before!(request as Parameters<NonNullable<typeof parser.before>>[0]);
    } catch (e) {
      const reason = (e as { cause?: { message?: string } })?.cause?.message ?? 'parse error';
      throw badRequest(`The request body is not valid JSON: ${reason}.`);
    }
    request.context.bodyEncoding = 'json';
  };
  return { before: jsonOrFormBefore };
}

/** The body text (base64 decoded) on `context.rawBody`; `event.body` is left as it came. */
function rawBody(): EndpointMiddleware {
  const rawBodyBefore = (request: EndpointRequest) => {
    request.context.rawBody = bodyText(request);
  };
  return { before: rawBodyBefore };
}
