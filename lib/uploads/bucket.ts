import { setting } from '#lib/settings.ts';

/**
 * The bucket for uploads and oversized responses (`UPLOAD_BUCKET`), or undefined when none is configured
 * (CLI/bench runs). Its own module, without the S3 SDK, so lib/answers/largeResponse.ts imports it cheaply.
 */
export function uploadBucket(): string | undefined {
  return setting('UPLOAD_BUCKET');
}
