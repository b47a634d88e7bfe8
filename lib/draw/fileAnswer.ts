import type { FileRow } from './access.ts';

/**
 * A file as the established MMGIS server answers it (docs/draw.md, "Answers"): its map client reads
 * `file_owner` of every listed file as a string and `file_owner_group` to find the lead's files. Master
 * files are stored owned by no user (so no account, not even one named "group", owns them); they are
 * answered as owned by `"group"` with `file_owner_group: ["mmgis-group"]`, and user files with
 * `file_owner_group: null`, as that server stores them.
 */
export interface FileAnswer extends Omit<FileRow, 'file_owner'> {
  file_owner: string;
  file_owner_group: string[] | null;
}

export const MASTER_OWNER = 'group';
export const LEAD_GROUP = 'mmgis-group';

export function toFileAnswer(f: FileRow): FileAnswer {
  const master = f.is_master || f.file_owner === null;
  return {
    ...f,
    file_owner: master ? MASTER_OWNER : (f.file_owner as string),
    file_owner_group: master ? [LEAD_GROUP] : null,
  };
}
