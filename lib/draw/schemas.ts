import { FEATURE_INTENTS, FILE_INTENTS, PUBLICITY } from './files.ts';

/**
 * The pieces the draw and files endpoints declare their bodies with (docs/draw.md, "Bodies": the
 * limits are listed there). Bodies come as JSON or as jQuery forms: a form's strings are coerced to the
 * declared types, JSON is taken as typed. A field that carries JSON may also come as the JSON text of it:
 * its handler declares it as `jsonOr(schema, LIMITS.<field>Text)` with the plain schema below and reads
 * it with `jsonField` (lib/http/jsonField.ts). Unknown fields are ignored (MMGIS's client sends some,
 * e.g. `tag` with `draw/add`).
 */
export const LIMITS = {
  /** Files one `files/getfile` reads. */
  fileIds: 100,
  /** Features one `merge`, `split` or `add` (`bulk_ids`) lists. */
  featureIds: 1000,
  fileName: 500,
  fileDescription: 10_000,
  username: 64,
  /** Usernames in `public_editors`. */
  editors: 1000,
  keyword: 200,
  /** Keys of a feature's `properties` object (top level). */
  propertyKeys: 1000,
  /** Characters of a field carrying JSON as a string of JSON. */
  geometryText: 4 * 1024 * 1024,
  propertiesText: 1024 * 1024,
  templateText: 1024 * 1024,
  /** Entries of a template given as a list. */
  templateItems: 10_000,
  geojsonText: 6 * 1024 * 1024,
  /** Features in `files/make`'s `geojson`. */
  geojsonFeatures: 100_000,
} as const;

/** No NUL character: PostgreSQL's text cannot store one. */
export const NO_NUL = '^[^\\u0000]*$';

/** A database id (a `bigint`; JSON numbers are exact up to 2^53 - 1). */
export const id = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/** An epoch-millisecond time (`time`, `undo_time`). */
export const epochMs = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * A time that may be left empty: null, or an empty form value (the MMGIS Draw tool sends `time: null`,
 * which jQuery writes as `time=`), means now, as MMGIS's own server reads it (docs/draw.md).
 */
export const epochMsOrNow = {
  type: ['integer', 'null'],
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
} as const;

export const fileName = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.fileName,
  // Not blank and no NUL (linear: the leading blanks are matched one way only).
  pattern: '^\\s*[^\\s\\u0000][^\\u0000]*$',
} as const;

export const fileDescription = {
  type: 'string',
  maxLength: LIMITS.fileDescription,
  pattern: NO_NUL,
} as const;

export const username = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.username,
  pattern: NO_NUL,
} as const;

/** A keyword of a file's description (`~#tag`, `~@folder`, `~^efolder`): one word, no `~`. */
export const keyword = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.keyword,
  pattern: '^[^\\s~\\u0000]*$',
} as const;

/** A feature intent; `''` (jQuery's null) and null are none. */
export const featureIntent = { enum: [...FEATURE_INTENTS, '', null] } as const;

/** A file intent; `''` and null are none. */
export const fileIntent = { enum: [...FILE_INTENTS, '', null] } as const;

/** `public`: `'1'`/`'0'`, also as a number or a boolean (`publicFlag` gives the stored `'1'`/`'0'`). */
export const publicFlagSchema = { enum: ['0', '1', 0, 1, 'false', 'true', false, true] } as const;
export const publicFlag = (v: string | number | boolean): '0' | '1' =>
  v === '1' || v === 1 || v === 'true' || v === true ? '1' : '0';

/** `publicity_type`; `''` (jQuery's null) and null are none. */
export const publicity = { enum: [...PUBLICITY, '', null] } as const;

/** A GeoJSON geometry (checked by `validGeometry`, lib/draw/geometry.ts); JSON text of it at most `geometryText`. */
export const geometry = { type: ['object', 'null'] } as const;

/** A feature's properties: an object (`_` is the server's and dropped); as text at most `propertiesText`. */
export const properties = {
  type: ['object', 'null'],
  maxProperties: LIMITS.propertyKeys,
  additionalProperties: true,
} as const;

/** A file's template: any JSON object or array (at most `templateItems` entries), or null (none); as text at most `templateText`. */
export const template = { type: ['object', 'array', 'null'], maxItems: LIMITS.templateItems } as const;

/** `files/make`'s GeoJSON FeatureCollection (each feature checked by lib/draw/files.ts). */
export const geojson = {
  type: ['object', 'null'],
  required: ['type', 'features'],
  properties: {
    type: { const: 'FeatureCollection' },
    features: { type: 'array', maxItems: LIMITS.geojsonFeatures, items: { type: 'object' } },
  },
} as const;

/** Listed ids, no duplicates: a list or one id (`idList` reads either as a list). */
const ids = (max: number) =>
  ({
    type: ['integer', 'array', 'null'],
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    items: id,
    maxItems: max,
    uniqueItems: true,
  }) as const;

export const featureIds = ids(LIMITS.featureIds);
export const fileIds = ids(LIMITS.fileIds);

/** Characters of the JSON text of `max` ids: each at most 16 digits and a comma, plus brackets and spaces. */
export const idsText = (max: number) => max * 20;

/** The ids a `featureIds` or `fileIds` value lists: one id is a list of one; absent or null, none. */
export function idList(value: number | number[] | null | undefined): number[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** `public_editors`: usernames as a list (or JSON text of it, or a comma-separated string: `editorsText`). */
export const editors = {
  type: ['array', 'null'],
  items: { type: 'string', maxLength: LIMITS.username, pattern: NO_NUL },
  maxItems: LIMITS.editors,
} as const;

/** Characters of `public_editors` as text. */
export const editorsTextLength = LIMITS.editors * (LIMITS.username + 1);

/**
 * `public_editors` as text in JSON's words: a comma-separated string (`a, b`) becomes the JSON text of its
 * list, so that one reader (`jsonField`) parses and checks every form of it; other values are unchanged.
 */
export function editorsText(value: unknown): unknown {
  if (typeof value !== 'string' || value === '' || value.trim().startsWith('[')) return value;
  return JSON.stringify(
    value
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );
}

/** The usernames a checked `public_editors` list names, trimmed, without blanks or repeats. */
export function editorNames(names: string[] | null | undefined): string[] | undefined {
  if (names === undefined) return undefined;
  return [...new Set((names ?? []).map((x) => x.trim()).filter(Boolean))];
}
