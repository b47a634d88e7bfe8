/**
 * What a webhook sends about a draw file (docs/webhooks.md), as the established server builds it: the
 * injectable variables of the file, a body whose top-level values naming `{variable}` are replaced by
 * that variable's value, and a URL whose `{variable}`s are replaced by their (URL-encoded) text.
 */
export type Variables = Record<string, unknown>;

const FILE_FIELDS = [
  'id',
  'file_owner',
  'file_owner_group',
  'file_name',
  'file_description',
  'is_master',
  'intent',
  'public',
  'hidden',
  'template',
  'publicity_type',
  'public_editors',
  'created_on',
  'updated_on',
] as const;

const keywords = (text: string, mark: string) =>
  (text.match(new RegExp(`~\\${mark}([^\\s])+`, 'g')) ?? []).map((t) => t.substring(2));

/** The variables of a file row and its current GeoJSON. */
export function fileVariables(file: Record<string, unknown>, geojson: unknown): Variables {
  const vars: Variables = {};
  for (const name of FILE_FIELDS)
    vars[name] = file[name] instanceof Date ? (file[name] as Date).toISOString() : file[name];
  vars.geojson = geojson;
  vars.file_id = vars.id;
  const description = vars.file_description;
  if (typeof description === 'string') {
    vars.raw_file_description = description;
    vars.tags = keywords(description, '#');
    vars.folders = keywords(description, '@');
    vars.efolders = keywords(description, '^');
    vars.file_description = description
      .replaceAll(/~#\w+/g, '')
      .replaceAll(/~@\w+/g, '')
      .replaceAll(/~\^\w+/g, '')
      .trim();
  }
  return vars;
}

const VARIABLE = /{(.*?)}/;
const VARIABLES = /{(.*?)}/g;

/** Variable names used that are not injectable (logged; they send nothing). */
export function unknownVariables(texts: unknown[], vars: Variables): string[] {
  const names = texts.flatMap((t) =>
    typeof t === 'string' ? [...t.matchAll(VARIABLES)].map((m) => m[1]) : [],
  );
  return [...new Set(names.filter((n) => !Object.hasOwn(vars, n)))];
}

/** Each top-level value that names a `{variable}` becomes that variable's value (any JSON). */
export function buildBody(body: Record<string, unknown>, vars: Variables): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).map(([k, v]) => {
      const m = typeof v === 'string' ? VARIABLE.exec(v) : null;
      return [k, m ? vars[m[1]] : v];
    }),
  );
}

/** Each `{variable}` in the URL becomes its text (objects as JSON), URL-encoded. */
export function buildUrl(url: string, vars: Variables): string {
  return url.replace(VARIABLES, (_all, name: string) => {
    const v = vars[name];
    const text = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    return encodeURIComponent(text);
  });
}
