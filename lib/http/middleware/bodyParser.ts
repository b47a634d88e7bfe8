import httpJsonBodyParser from '@middy/http-json-body-parser';
import { badRequest } from '#lib/errors.ts';
import { parseFormBody } from '../formBody.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/**
 * How an endpoint reads its body: `json` (default) parses it with `@middy/http-json-body-parser`;
 * `raw` hands the text over untouched (`rawBody`); `json-or-form` also takes a jQuery-style urlencoded
 * form (lib/http/formBody.ts). Another kind plugs in here as one more entry of `parsers`.
 */
export type BodyKind = 'json' | 'raw' | 'json-or-form';

const parsers: Record<BodyKind, () => EndpointMiddleware> = {
  json: jsonBody,
  raw: rawBody,
  'json-or-form': jsonOrForm,
};

export function bodyParser({ kind = 'json' }: { kind?: BodyKind } = {}): EndpointMiddleware {
  return parsers[kind]();
}

/**
 * JSON whatever the Content-Type (MMGIS clients send JSON as text/plain too); an empty body is no body;
 * malformed JSON is a 400 quoting the parser's reason.
 */
function jsonBody(): EndpointMiddleware {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<
    typeof httpJsonBodyParser
  >[0]);
  const jsonBodyBefore = async (request: EndpointRequest) => {
    const { body } = request.event;
    if (typeof body !== 'string' || body.trim() === '') {
      request.event.body = null;
      return;
    }
    try {
      await parser.before!(request as Parameters<NonNullable<typeof parser.before>>[0]);
    } catch (e) {
      const reason = (e as { cause?: { message?: string } })?.cause?.message ?? 'parse error';
      throw badRequest(`The request body is not valid JSON: ${reason}.`);
    }
  };
  return { before: jsonBodyBefore };
}

/** The body text (base64 decoded) on `context.rawBody`; `event.body` is left as it came. */
function rawBody(): EndpointMiddleware {
  const rawBodyBefore = (request: EndpointRequest) => {
    const { body, isBase64Encoded } = request.event;
    request.context.rawBody =
      body == null ? '' : isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  };
  return { before: rawBodyBefore };
}

/** A form body (`application/x-www-form-urlencoded`) parsed by `parseFormBody`; anything else as JSON. */
function jsonOrForm(): EndpointMiddleware {
  const json = jsonBody();
  const jsonOrFormBefore = (request: EndpointRequest) => {
    if (parseFormBody(request.event)) return;
    return json.before!(request);
  };
  return { before: jsonOrFormBefore };
}
