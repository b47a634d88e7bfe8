import type { Principal } from '#lib/auth/principal.ts';
import type { Queryable } from '#lib/db/index.ts';
import { HttpError, notFound, unauthorized } from '#lib/errors.ts';

/**
 * Who may do what with a draw file: the one place these rules live (docs/draw.md, "Access").
 * - read: the owner, an admin, anyone when the file is public;
 * - change its features: the owner, an admin, anyone when public + `all_edit`, the listed
 *   `public_editors` when public + `list_edit`;
 * - change, remove or restore the file itself: the owner or an admin, never on a master file.
 * A file that does not exist, or that its owner removed (hidden), is 404 to everyone but its owner and
 * admins; an existing file the caller may not read or change is 403.
 */
export interface FileRow {
  id: number;
  /** The owning account; null for master files and for files whose owner was removed. */
  owner_id: number | null;
  /** The owner's current username (null when owner_id is). */
  file_owner: string | null;
  /** The name of a removed owner, for administrators only (docs/draw.md, "Ownership"). */
  former_owner: string | null;
  file_name: string;
  file_description: string;
  intent: string | null;
  public: '0' | '1';
  hidden: '0' | '1';
  template: unknown;
  publicity_type: 'read_only' | 'list_edit' | 'all_edit' | null;
  /** The listed editors' current usernames, and their accounts (the ids decide access). */
  public_editors: string[];
  editor_ids: number[];
  is_master: boolean;
  created_on: Date;
  updated_on: Date;
}

export interface Caller {
  id: number;
  username: string;
  admin: boolean;
}

export function caller(principal: Principal): Caller {
  if (!principal.user) throw unauthorized();
  return {
    id: Number(principal.user.id),
    username: principal.user.username,
    admin: principal.user.role === 'admin',
  };
}

// Ownership and editing rights are by account id: a new account that takes a removed user's name
// inherits none of their files (docs/draw.md, "Ownership").
const isOwner = (f: FileRow, c: Caller) => f.owner_id !== null && Number(f.owner_id) === c.id;

export function canRead(f: FileRow, c: Caller): boolean {
  return c.admin || isOwner(f, c) || (f.public === '1' && f.hidden === '0');
}

export function canEditFeatures(f: FileRow, c: Caller): boolean {
  if (c.admin || isOwner(f, c)) return true;
  if (f.public !== '1' || f.hidden !== '0') return false;
  if (f.publicity_type === 'all_edit') return true;
  return f.publicity_type === 'list_edit' && f.editor_ids.some((id) => Number(id) === c.id);
}

export function canChangeFile(f: FileRow, c: Caller): boolean {
  return !f.is_master && (c.admin || isOwner(f, c));
}

function visible(f: FileRow | undefined, id: number, c: Caller): FileRow {
  if (!f || (f.hidden === '1' && !c.admin && !isOwner(f, c))) throw notFound(`No file with id ${id}.`);
  return f;
}

export type Need = 'read' | 'features' | 'file';

/** Checks `need` on a loaded file row (or its absence); returns the row. */
export function assertAccess(f: FileRow | undefined, id: number, c: Caller, need: Need): FileRow {
  const file = visible(f, id, c);
  if (!canRead(file, c)) throw new HttpError(403, `You may not read file ${id}.`);
  if (need === 'features' && !canEditFeatures(file, c)) {
    throw new HttpError(403, `You may not change the features of file ${id}.`);
  }
  if (need === 'file' && !canChangeFile(file, c)) {
    throw new HttpError(
      403,
      file.is_master
        ? `File ${id} is a master file: it cannot be changed, removed or restored.`
        : `Only the owner of file ${id} or an administrator may change it.`,
    );
  }
  return file;
}

/**
 * The columns of a file row as `FileRow`: `draw_files` as `f`, its owner's and editors' current
 * usernames joined from `users`. Use as `select ${fileColumns(q)} from draw_files f ...`.
 */
export const fileColumns = (q: Queryable) => q`
  f.id, f.owner_id, (select u.username from users u where u.id = f.owner_id) as file_owner,
  f.former_owner, f.file_name, f.file_description, f.intent, f.public, f.hidden, f.template,
  f.publicity_type,
  array(select u.username from draw_file_editors e join users u on u.id = e.user_id
    where e.file_id = f.id order by u.username) as public_editors,
  array(select e.user_id from draw_file_editors e where e.file_id = f.id order by e.user_id) as editor_ids,
  f.is_master, f.created_on, f.updated_on`;

/** One file row (undefined when none). */
export async function fileRow(q: Queryable, id: number): Promise<FileRow | undefined> {
  const [f] = await q<FileRow[]>`select ${fileColumns(q)} from draw_files f where f.id = ${id}`;
  return f;
}

/** Loads a file and checks `need`. */
export async function fileFor(q: Queryable, id: number, c: Caller, need: Need): Promise<FileRow> {
  const f = await fileRow(q, id);
  return assertAccess(f, id, c, need);
}

/**
 * Locks the file row for the rest of the transaction (writes to one file are serialized), then checks
 * `need`. Every write to a file's features or snapshots goes through here first.
 */
export async function lockFile(q: Queryable, id: number, c: Caller, need: Need): Promise<FileRow> {
  await q`select id from draw_files where id = ${id} for update`;
  return assertAccess(await fileRow(q, id), id, c, need);
}
