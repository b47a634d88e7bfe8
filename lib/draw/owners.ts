import type { Queryable } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';
import { type FileRow, fileColumns, fileRow, lockFile } from './access.ts';

/**
 * Files owned by no account (docs/draw.md, "Ownership"): removing a user leaves their files so, and only
 * an administrator lists and reassigns them.
 */
export async function listOrphans(q: Queryable): Promise<FileRow[]> {
  return q<FileRow[]>`
    select ${fileColumns(q)} from draw_files f
    where f.owner_id is null and not f.is_master
    order by f.id`;
}

/** Gives file `id` (any user file, not a master file) to the account named `username`. */
export async function reassign(q: Queryable, id: number, username: string): Promise<FileRow> {
  const [user] = await q<{ id: number }[]>`select id from users where username = ${username}`;
  if (!user) throw notFound(`No user named '${username}'.`);
  // As an administrator would: 404 for no file, 403 for a master file.
  await lockFile(q, id, { id: 0, username: '', admin: true }, 'file');
  await q`update draw_files set owner_id = ${user.id}, former_owner = null, updated_on = now() where id = ${id}`;
  return (await fileRow(q, id)) as FileRow;
}
