import { createSign } from 'node:crypto';

/**
 * CloudFront signed cookies with a custom policy (docs/mission-site.md, "Deployed"): the policy is JSON
 * without white space, signed with RSA-SHA1 by the private key of a public key in the distribution's
 * trusted key group; policy and signature travel in CloudFront's URL-safe base64 (`+` → `-`, `=` → `_`,
 * `/` → `~`), beside the key's id (CloudFront Developer Guide, "Set signed cookies using a custom policy").
 */

/** The three cookie names CloudFront reads for a custom policy. */
export const POLICY_COOKIE = 'CloudFront-Policy';
export const SIGNATURE_COOKIE = 'CloudFront-Signature';
export const KEY_PAIR_ID_COOKIE = 'CloudFront-Key-Pair-Id';

/** CloudFront's base64: the standard alphabet with `+`, `=` and `/` replaced by `-`, `_` and `~`. */
export function cloudFrontBase64(bytes: Buffer | string): string {
  const b64 = (typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).toString('base64');
  return b64.replace(/\+/g, '-').replace(/=/g, '_').replace(/\//g, '~');
}

/**
 * A custom policy for `resource` (a URL that may hold `*` wildcards) valid until `expiresAt` (whole
 * seconds, rounded down), as the exact text that is signed.
 */
export function customPolicy(resource: string, expiresAt: Date): string {
  const epoch = Math.floor(expiresAt.getTime() / 1000);
  return JSON.stringify({
    Statement: [{ Resource: resource, Condition: { DateLessThan: { 'AWS:EpochTime': epoch } } }],
  });
}

/** The RSA-SHA1 signature of `policy` by `privateKeyPem`, in CloudFront's base64. */
export function signPolicy(policy: string, privateKeyPem: string): string {
  const signer = createSign('RSA-SHA1');
  signer.update(policy, 'utf8');
  return cloudFrontBase64(signer.sign(privateKeyPem));
}

export interface SignedCookieValues {
  [POLICY_COOKIE]: string;
  [SIGNATURE_COOKIE]: string;
  [KEY_PAIR_ID_COOKIE]: string;
}

/** The values of the three cookies that let a browser fetch `resource` until `expiresAt`. */
export function signedCookieValues(
  resource: string,
  expiresAt: Date,
  key: { keyPairId: string; privateKey: string },
): SignedCookieValues {
  const policy = customPolicy(resource, expiresAt);
  return {
    [POLICY_COOKIE]: cloudFrontBase64(policy),
    [SIGNATURE_COOKIE]: signPolicy(policy, key.privateKey),
    [KEY_PAIR_ID_COOKIE]: key.keyPairId,
  };
}
