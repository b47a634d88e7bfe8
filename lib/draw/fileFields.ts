import type { ChangeInput } from './files.ts';
import {
  editorNames,
  fileDescription,
  fileName,
  publicFlag,
  publicFlagSchema,
  publicity,
} from './schemas.ts';

/**
 * The plain file fields `files/make` and `files/change` share (docs/draw.md, "Files"); each handler adds
 * `template` and `public_editors`, which may come as JSON text (`jsonOr`, lib/http/jsonField.ts).
 */
export const fileFieldsSchema = {
  file_name: fileName,
  file_description: fileDescription,
  public: publicFlagSchema,
  publicity_type: publicity,
} as const;

interface FileFieldsBody {
  file_name?: string;
  file_description?: string;
  public?: string | number | boolean;
  /** As read by `jsonField`. */
  template?: unknown;
  publicity_type?: string | null;
  /** As read by `jsonField` (of `editorsText`). */
  public_editors?: string[] | null;
}

/** The given file fields in their stored form (only those present). */
export function fileFields(b: FileFieldsBody): ChangeInput {
  const out: ChangeInput = {};
  if (b.file_name !== undefined) out.file_name = b.file_name;
  if (b.file_description !== undefined) out.file_description = b.file_description;
  if (b.public !== undefined) out.public = publicFlag(b.public);
  if (b.template !== undefined) out.template = b.template;
  if (b.publicity_type !== undefined) out.publicity_type = b.publicity_type || null;
  const editors = editorNames(b.public_editors);
  if (editors !== undefined) out.public_editors = editors;
  return out;
}
