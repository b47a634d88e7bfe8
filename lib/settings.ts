/**
 * Settings from the environment: the one place that turns `process.env` text into typed values. Every
 * reader treats an unset and an empty variable alike (the fallback applies), and a number that is not
 * finite, negative, or zero where zero is not allowed, as unset: a bad setting falls back to the default
 * rather than failing a cold start. Each variable is documented with what it governs (docs/).
 * (Functions that take an `env` object for their tests, e.g. `secretConnection(env)`, read that object.)
 */

/** The variable's text, or undefined when it is unset or empty. */
export function envText(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

export interface EnvNumberOptions {
  /** 0 is a valid value (default: only positive numbers are). */
  zero?: boolean;
  /** Rounded down to an integer. */
  integer?: boolean;
  /** Larger values are clamped to this. */
  max?: number;
}

/** A non-negative number (positive unless `zero`), or `fallback`. */
export function envNumber(name: string, fallback: number, options: EnvNumberOptions = {}): number {
  const text = envText(name);
  const v = text === undefined ? Number.NaN : Number(text);
  if (!Number.isFinite(v) || v < 0 || (v === 0 && !options.zero)) return fallback;
  const n = options.integer ? Math.floor(v) : v;
  return options.max !== undefined ? Math.min(n, options.max) : n;
}
