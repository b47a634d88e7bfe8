import { createHash, randomBytes } from 'node:crypto';

/** A random URL-safe secret (session cookies, API tokens). */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Secrets are stored only as their SHA-256: high-entropy values need no slow hash. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
