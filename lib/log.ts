import { AsyncLocalStorage } from 'node:async_hooks';
import { processWide } from '#lib/processWide.ts';
import { setting } from '#lib/settings.ts';

/**
 * Structured JSON logs (one line each, CloudWatch-friendly), with request context: the request-log
 * middleware appends `requestId` (and method, path) once per request, so every line logged while a
 * request runs carries it, as Powertools' `logger.appendKeys` does. The context lives in the request's
 * async context (`withLogContext`), so requests served at once by one process (`npm start` runs every
 * function in one process) keep their own keys.
 */
const current = processWide(
  Symbol.for('mmgis-serverless.log.context'),
  () => new AsyncLocalStorage<Record<string, unknown>>(),
);
/** Keys appended outside any `withLogContext` (scripts, jobs). */
let outside: Record<string, unknown> = {};

/** Runs `fn` with a log context of its own. */
export function withLogContext<T>(fn: () => Promise<T>): Promise<T> {
  return current.run({}, fn);
}

/** Adds keys to every following log line of this request (or, outside one, until `clearLogContext()`). */
export function appendLogKeys(keys: Record<string, unknown>): void {
  const store = current.getStore();
  if (store) Object.assign(store, keys);
  else outside = { ...outside, ...keys };
}

export function clearLogContext(): void {
  const store = current.getStore();
  if (store) for (const k of Object.keys(store)) delete store[k];
  else outside = {};
}

/** One log line: `level`, `time`, `message`, the request context, then `fields`. */
export function log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> = {}) {
  const threshold = setting('LOG_LEVEL');
  if (threshold === 'silent') return;
  if (level === 'info' && threshold === 'warn') return;
  const line = JSON.stringify({
    level,
    time: new Date().toISOString(),
    message,
    ...(current.getStore() ?? outside),
    ...fields,
  });
  if (level === 'error') console.error(line);
  else console.log(line);
}
