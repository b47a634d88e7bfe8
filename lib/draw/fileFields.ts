import type { ChangeInput } from './files.ts';
import {
  editorNames,
  editorsSchema,
  fileDescription,
  fileName,
  publicFlag,
  publicFlagSchema,
  publicity,
  templateField,
} from './schemas.ts';

/** The file fields `files/make` and `files/change` share (docs/draw.md, "Files"). */
export const fileFieldsSchema = {
  file_name: fileName,
  file_description: fileDescription,
  public: publicFlagSchema,
  /** `template=` (jQuery's null, as the new-file dialog sends it): no template. */
  template: templateField.schema,
  publicity_type: publicity,
  /** A list of usernames, a string of a JSON list, or a comma-separated string. */
  public_editors: editorsSchema,
} as const;

interface FileFieldsBody {
  file_name?: string;
  file_description?: string;
  public?: string | number | boolean;
  template?: unknown;
  publicity_type?: string | null;
  public_editors?: unknown;
}

/** The given file fields in their stored form (only those present). */
export function fileFields(b: FileFieldsBody): ChangeInput {
  const out: ChangeInput = {};
  if (b.file_name !== undefined) out.file_name = b.file_name;
  if (b.file_description !== undefined) out.file_description = b.file_description;
  if (b.public !== undefined) out.public = publicFlag(b.public);
  const template = templateField.read(b.template);
  if (template !== undefined) out.template = template;
  if (b.publicity_type !== undefined) out.publicity_type = b.publicity_type || null;
  const editors = editorNames(b.public_editors);
  if (editors !== undefined) out.public_editors = editors;
  return out;
}
