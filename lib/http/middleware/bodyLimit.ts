import { payloadTooLarge } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/** `MAX_BODY_BYTES`, default 6 MB: Lambda's synchronous request limit. */
export function maxBodyBytes(): number {
  return setting('MAX_BODY_BYTES');
}

/** Refuses a body over `limit` bytes with 413 before anything reads it (base64 bodies count 4/3). */
export function bodyLimit({ limit = maxBodyBytes() }: { limit?: number } = {}): EndpointMiddleware {
  const bodyLimitBefore = (request: EndpointRequest) => {
    const { body, isBase64Encoded } = request.event;
    if (typeof body !== 'string') return;
    if (Buffer.byteLength(body) <= (isBase64Encoded ? (limit * 4) / 3 : limit)) return;
    throw payloadTooLarge(
      `The request body is larger than ${limit} bytes (the API Gateway/Lambda limit). ` +
        'Upload large GeoJSON through POST /api/geodatasets/upload (a presigned S3 URL) instead.',
    );
  };
  return { before: bodyLimitBefore };
}
