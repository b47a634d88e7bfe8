/** Upload settings read from the environment, without the S3 SDK (cheap to import; see lib/uploads/s3.ts). */

/** The bucket for uploads and oversized responses, or undefined when none is configured (CLI/bench runs). */
export function uploadBucket(): string | undefined {
  return process.env.UPLOAD_BUCKET || undefined;
}

export function envBytes(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}
