/** The value of header `name` in `headers`, whatever the case of its name (API Gateway keeps the client's). */
export function header(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** `headers` with `name` added to its `Vary` (whatever the case of that header's name). */
export function withVary(
  headers: Record<string, boolean | number | string>,
  name: string,
): Record<string, boolean | number | string> {
  const out = { ...headers };
  const values: string[] = [];
  for (const k of Object.keys(out)) {
    if (k.toLowerCase() !== 'vary') continue;
    values.push(...String(out[k]).split(','));
    delete out[k];
  }
  const all = values.map((v) => v.trim()).filter(Boolean);
  if (!all.some((v) => v.toLowerCase() === name.toLowerCase())) all.push(name);
  out.Vary = all.join(', ');
  return out;
}
