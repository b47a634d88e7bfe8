import type { FileRow } from './access.ts';

/**
 * A file as the established MMGIS server answers it (docs/draw.md, "Answers"): its map client reads
 * `file_owner` of every listed file as a string and `file_owner_group` to find the lead's files. Master
 * files are stored owned by no user (so no account, not even one named "group", owns them); they are
 * answered as owned by `"group"` with `file_owner_group: ["mmgis-group"]`, and user files with
 * `file_owner_group: null`, as that server stores them. Ownership is stored as an account id and
 * answered as that account's current username; a file whose owner was removed answers `file_owner: ""`
 * (no username is empty, so no client takes it for its own). The ids stay inside the service.
 */
export interface FileAnswer extends Omit<FileRow, 'file_owner' | 'owner_id' | 'former_owner' | 'editor_ids'> {
  file_owner: string;
  file_owner_group: string[] | null;
}

export const MASTER_OWNER = 'group';
export const LEAD_GROUP = 'mmgis-group';
export const NO_OWNER = '';

export function toFileAnswer(f: FileRow): FileAnswer {
  const { owner_id: _id, former_owner: _former, editor_ids: _editors, ...rest } = f;
  return {
    ...rest,
    file_owner: f.is_master ? MASTER_OWNER : (f.file_owner ?? NO_OWNER),
    file_owner_group: f.is_master ? [LEAD_GROUP] : null,
  };
}

/** An ownerless file as administrators list it: the answer plus the removed owner's name. */
export function toOrphanAnswer(f: FileRow): FileAnswer & { former_owner: string | null } {
  return { ...toFileAnswer(f), former_owner: f.former_owner };
}
