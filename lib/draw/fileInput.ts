import { badRequest } from '#lib/errors.ts';
import type { ChangeInput } from './files.ts';
import { PUBLICITY } from './files.ts';
import { type Body, oneOf, optJson, optString } from './input.ts';

/** The file fields `make` and `change` share, read from a JSON or form body (400 naming the field). */
export function fileChanges(b: Body): ChangeInput {
  const out: ChangeInput = {};
  if (b.file_name !== undefined) {
    const name = optString(b, 'file_name', 500);
    if (!name?.trim()) throw badRequest("Body field 'file_name' must not be empty.");
    out.file_name = name;
  }
  if (b.file_description !== undefined) out.file_description = optString(b, 'file_description', 10_000) ?? '';
  if (b.public !== undefined) {
    const p = b.public;
    if (p === 1 || p === '1' || p === true || p === 'true') out.public = '1';
    else if (p === 0 || p === '0' || p === false || p === 'false') out.public = '0';
    else throw badRequest("Body field 'public' must be 0 or 1.");
  }
  if (b.template !== undefined) {
    // jQuery sends a null template as `template=` (an empty form value): no template, as MMGIS reads it.
    const t = b.template === '' ? null : optJson(b, 'template');
    if (t !== null && (typeof t !== 'object' || t === undefined)) {
      throw badRequest("Body field 'template' must be a JSON object, array or null.");
    }
    out.template = t;
  }
  if (b.publicity_type !== undefined) out.publicity_type = oneOf(b, 'publicity_type', PUBLICITY) ?? null;
  if (b.public_editors !== undefined) out.public_editors = editors(b.public_editors);
  return out;
}

function editors(v: unknown): string[] {
  let list: unknown = v;
  if (typeof v === 'string') {
    const s = v.trim();
    if (s.startsWith('[')) {
      try {
        list = JSON.parse(s);
      } catch {
        throw badRequest("Body field 'public_editors' is not valid JSON.");
      }
    } else list = s === '' ? [] : s.split(',');
  }
  if (v === null) list = [];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string') || list.length > 1000) {
    throw badRequest("Body field 'public_editors' must be a list of usernames or a comma-separated string.");
  }
  return [...new Set((list as string[]).map((x) => x.trim()).filter(Boolean))];
}
