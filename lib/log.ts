import { envText } from '#lib/settings.ts';

/**
 * Structured JSON logs (one line each, CloudWatch-friendly), with request context: the request-log
 * middleware appends `requestId` (and method, path) once per request, so every line logged while a
 * request runs carries it, as Powertools' `logger.appendKeys` does. A Lambda instance serves one request
 * at a time, so one module-level context is enough; the middleware clears it when the request ends.
 */
let context: Record<string, unknown> = {};

/** Adds keys to every following log line until `clearLogContext()`. */
export function appendLogKeys(keys: Record<string, unknown>): void {
  context = { ...context, ...keys };
}

export function clearLogContext(): void {
  context = {};
}

/** One log line: `level`, `time`, `message`, the request context, then `fields`. */
export function log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> = {}) {
  const threshold = envText('LOG_LEVEL');
  if (threshold === 'silent') return;
  if (level === 'info' && threshold === 'warn') return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...context, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}
