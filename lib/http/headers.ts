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
