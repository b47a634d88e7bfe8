import { randomUUID } from 'node:crypto';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Caller, type FileRow, fileColumns, fileRow, lockFile } from './access.ts';
import { validGeometry } from './geometry.ts';
import { Action, writeSnapshot } from './history.ts';

/** Draw files themselves: list, make, change, hide/restore, keyword renames (docs/draw.md). */
export const FILE_INTENTS = ['roi', 'campaign', 'campsite', 'trail', 'signpost', 'all'] as const;
export const FEATURE_INTENTS = [
  'roi',
  'campaign',
  'campsite',
  'trail',
  'signpost',
  'polygon',
  'line',
  'point',
  'text',
  'arrow',
  'note',
] as const;
export const PUBLICITY = ['read_only', 'list_edit', 'all_edit'] as const;

export async function listFiles(q: Queryable, c: Caller): Promise<FileRow[]> {
  return q<FileRow[]>`
    select ${fileColumns(q)} from draw_files f
    where f.hidden = '0' and (${c.admin} or f.public = '1' or f.owner_id = ${c.id})
    order by f.id`;
}

/** The accounts of the named editors; a name that matches no user is a 400 naming it. */
async function editorIds(q: Queryable, names: string[]): Promise<number[]> {
  if (!names.length) return [];
  const rows = await q<{ id: number; username: string }[]>`
    select id, username from users where username = any(${names}::text[])`;
  const missing = names.find((n) => !rows.some((r) => r.username === n));
  if (missing !== undefined) throw badRequest(`Body field 'public_editors' names no user '${missing}'.`);
  return rows.map((r) => Number(r.id));
}

async function setEditors(q: Queryable, fileId: number, names: string[]): Promise<void> {
  const ids = await editorIds(q, names);
  await q`delete from draw_file_editors where file_id = ${fileId}`;
  if (ids.length) {
    await q`
      insert into draw_file_editors (file_id, user_id)
      select ${fileId}, unnest(${ids}::bigint[])`;
  }
}

export interface MakeInput {
  file_name: string;
  file_description?: string;
  intent?: string | null;
  template?: unknown;
  public?: '0' | '1';
  publicity_type?: string | null;
  public_editors?: string[];
  geojson?: unknown;
}

interface NewFeature {
  level: number;
  intent: string | null;
  properties: Record<string, unknown>;
  geometry: string;
}

function featuresOf(geojson: unknown, fileIntent: string | null): NewFeature[] {
  if (geojson === undefined || geojson === null) return [];
  const fc = geojson as { type?: unknown; features?: unknown };
  if (typeof fc !== 'object' || fc.type !== 'FeatureCollection' || !Array.isArray(fc.features)) {
    throw badRequest("Body field 'geojson' must be a GeoJSON FeatureCollection.");
  }
  return fc.features.map((f, i) => {
    const field = `geojson.features[${i}]`;
    if (!f || typeof f !== 'object' || (f as { type?: unknown }).type !== 'Feature') {
      throw badRequest(`Body field '${field}' must be a GeoJSON Feature.`);
    }
    const geometry = validGeometry((f as { geometry?: unknown }).geometry, `${field}.geometry`);
    const p = (f as { properties?: unknown }).properties;
    if (p !== undefined && p !== null && (typeof p !== 'object' || Array.isArray(p))) {
      throw badRequest(`Body field '${field}.properties' must be an object.`);
    }
    const { _: meta, ...properties } = (p ?? {}) as Record<string, unknown>;
    const metaIntent = (meta as { intent?: unknown } | undefined)?.intent;
    const intent =
      typeof metaIntent === 'string' && (FEATURE_INTENTS as readonly string[]).includes(metaIntent)
        ? metaIntent
        : fileIntent && fileIntent !== 'all'
          ? fileIntent
          : null;
    if (typeof properties.uuid !== 'string') properties.uuid = randomUUID();
    return { level: i, intent, properties, geometry: JSON.stringify(geometry) };
  });
}

/** Creates a file owned by the caller; its first snapshot (action 0) holds the given features. */
export async function makeFile(q: Queryable, c: Caller, input: MakeInput): Promise<number> {
  const intent = input.intent ?? null;
  const features = featuresOf(input.geojson, intent);
  const [f] = await q<{ id: number }[]>`
    insert into draw_files (owner_id, file_name, file_description, intent, public, template,
      publicity_type)
    values (${c.id}, ${input.file_name}, ${input.file_description ?? ''}, ${intent},
      ${input.public ?? '1'},
      ${input.template === undefined || input.template === null ? null : JSON.stringify(input.template)}::text::jsonb,
      ${input.publicity_type === undefined ? 'read_only' : input.publicity_type})
    returning id`;
  await setEditors(q, f.id, input.public_editors ?? []);
  const ids = features.length
    ? (
        await q<{ id: number }[]>`
          insert into draw_features (file_id, level, intent, properties, geom)
          select ${f.id}, x.level, x.intent, x.properties,
            ST_SetSRID(ST_GeomFromGeoJSON(x.geometry), 4326)
          from jsonb_to_recordset(${JSON.stringify(features)}::text::jsonb)
            as x (level int, intent text, properties jsonb, geometry text)
          order by x.level
          returning id`
      ).map((r) => r.id)
    : [];
  // An empty file has no history yet, as in MMGIS: its first change writes the first snapshot.
  if (ids.length > 0) await writeSnapshot(q, f.id, Action.add, ids, c.id);
  return f.id;
}

export interface ChangeInput {
  file_name?: string;
  file_description?: string;
  public?: '0' | '1';
  template?: unknown;
  publicity_type?: string | null;
  public_editors?: string[];
}

export async function changeFile(q: Queryable, c: Caller, id: number, ch: ChangeInput): Promise<FileRow> {
  await lockFile(q, id, c, 'file');
  const set = (k: keyof ChangeInput) => ch[k] !== undefined;
  if (ch.public_editors !== undefined) await setEditors(q, id, ch.public_editors);
  await q`
    update draw_files set
      file_name = ${set('file_name') ? ch.file_name! : q`file_name`},
      file_description = ${set('file_description') ? ch.file_description! : q`file_description`},
      public = ${set('public') ? ch.public! : q`public`},
      template = ${set('template') ? q`${ch.template === null ? null : JSON.stringify(ch.template)}::text::jsonb` : q`template`},
      publicity_type = ${set('publicity_type') ? ch.publicity_type! : q`publicity_type`},
      updated_on = now()
    where id = ${id}`;
  return (await fileRow(q, id)) as FileRow;
}

export async function setHidden(q: Queryable, c: Caller, id: number, hidden: boolean): Promise<FileRow> {
  await lockFile(q, id, c, 'file');
  await q`update draw_files set hidden = ${hidden ? '1' : '0'}, updated_on = now() where id = ${id}`;
  return (await fileRow(q, id)) as FileRow;
}

const MARK = { tags: '~#', folders: '~@', efolders: '~^' } as const;
export type KeywordType = keyof typeof MARK;

/**
 * Renames (or, with `newKeyword` null, removes) a tag, folder or efolder keyword in the descriptions of
 * the caller's own files only. Returns how many files changed.
 */
export async function modifyKeyword(
  q: Queryable,
  c: Caller,
  keyword: string,
  type: KeywordType,
  newKeyword: string | null,
): Promise<number> {
  const mark = MARK[type];
  const escaped = `${mark}${keyword}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(^|\\s)${escaped}(?=\\s|$)`, 'g');
  const rows = await q<{ id: number; file_description: string }[]>`
    select id, file_description from draw_files
    where owner_id = ${c.id} and not is_master and strpos(file_description, ${mark + keyword}) > 0
    order by id for update`;
  let count = 0;
  for (const r of rows) {
    re.lastIndex = 0;
    if (!re.test(r.file_description)) continue;
    re.lastIndex = 0;
    const next = r.file_description
      .replace(re, (_m, pre: string) => (newKeyword === null ? pre : `${pre}${mark}${newKeyword}`))
      .replace(/\s{2,}/g, ' ')
      .trim();
    if (next === r.file_description) continue;
    await q`update draw_files set file_description = ${next}, updated_on = now() where id = ${r.id}`;
    count++;
  }
  return count;
}
