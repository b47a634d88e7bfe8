import { readFileSync } from 'node:fs';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type Env, setting } from '#lib/settings.ts';

/**
 * The RDS Proxy / direct deployment (docs/deploying.md): the host, port, user and database name are plain
 * parameters (`DB_HOST`, `DB_PORT`, `DB_USER`, `DB_NAME`); the password is the `password` field of the
 * Secrets Manager secret `DB_URL_SECRET_ARN` (the RDS secret format), fetched at cold start and cached for
 * the life of the instance (fetched again after `SECRET_TTL_MS`, so a rotation is picked up). TLS is
 * verified against `DB_CA_FILE` (the RDS CA bundle the Lambda Node.js runtime ships at
 * /var/runtime/ca-cert.pem).
 */

const SECRET_TTL_MS = 15 * 60 * 1000;
let cached: { at: number; value: Promise<string> } | undefined;

export function secretPassword(secretArn: string): Promise<string> {
  if (!cached || Date.now() - cached.at > SECRET_TTL_MS) {
    const value = new SecretsManagerClient({})
      .send(new GetSecretValueCommand({ SecretId: secretArn }))
      .then((res) => {
        const text = res.SecretString ?? '';
        try {
          const parsed = JSON.parse(text) as { password?: string };
          return parsed.password ?? text;
        } catch {
          return text;
        }
      });
    value.catch(() => {
      cached = undefined;
    });
    cached = { at: Date.now(), value };
  }
  return cached.value;
}

/** The URL and postgres.js options of the secret-based connection, or null when `DB_URL_SECRET_ARN` is unset. */
export function secretConnection(env?: Env): {
  url: string;
  options: { password: () => Promise<string>; ssl: { ca?: string; rejectUnauthorized: true } };
} | null {
  const arn = setting('DB_URL_SECRET_ARN', env);
  if (!arn || setting('DATABASE_URL', env)) return null;
  const host = setting('DB_HOST', env);
  if (!host) throw new Error('DB_URL_SECRET_ARN needs DB_HOST (the RDS Proxy or cluster endpoint)');
  const u = new URL('postgres://localhost');
  u.hostname = host;
  u.port = setting('DB_PORT', env);
  u.username = setting('DB_USER', env);
  u.pathname = `/${setting('DB_NAME', env)}`;
  const caFile = setting('DB_CA_FILE', env);
  const ca = caFile ? readFileSync(caFile, 'utf8') : undefined;
  return {
    url: u.toString(),
    options: {
      password: () => secretPassword(arn),
      ssl: { ...(ca ? { ca } : {}), rejectUnauthorized: true },
    },
  };
}
