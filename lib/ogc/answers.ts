/** The headers of the OGC API answers: the JSON media type given (`application/json` by default), or HTML. */
export function jsonHeaders(
  type = 'application/json',
  extra: Record<string, string> = {},
): Record<string, string> {
  return { 'Content-Type': `${type}; charset=utf-8`, ...extra };
}

export function htmlHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': 'text/html; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...extra };
}
