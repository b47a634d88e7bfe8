import { successMessage } from '../describe.ts';
import { arrayOf, integer, nullable, number, object, string } from '../json.ts';
import { featureCollection } from './geodatasets.ts';

/** Response shapes of /api/draw and /api/files (docs/draw.md): every answer is `{status, message, body}`. */

const ids = arrayOf(integer);
const flag01 = { enum: ['0', '1'] } as const;

export const fileRow = object({
  id: integer,
  file_owner: string,
  file_owner_group: nullable(arrayOf(string)),
  file_name: string,
  file_description: string,
  intent: nullable(string),
  public: flag01,
  hidden: flag01,
  template: {},
  publicity_type: { enum: ['read_only', 'list_edit', 'all_edit', null] },
  public_editors: arrayOf(string),
  is_master: { type: 'boolean' },
  created_on: string,
  updated_on: string,
});

const snapshot = object({
  history_id: integer,
  time: number,
  action_index: integer,
  history: ids,
  author: nullable(string),
});

/** draw/add and draw/edit: the written feature (`ids`: every row an add created). */
export const writtenFeature = successMessage(
  object({ id: nullable(integer), uuid: nullable(string), intent: nullable(string), ids }, ['ids']),
);
/** draw/merge and draw/split: the new features' ids. */
export const idsAnswer = successMessage(object({ ids }));
/** draw/remove: the file's feature ids after the removal. */
export const historyIds = successMessage(ids);
/** draw/undo: the snapshot restored. */
export const snapshotAnswer = successMessage(snapshot);

export const fileAnswer = successMessage(fileRow);
export const filesAnswer = successMessage(arrayOf(fileRow));
/** files/orphans: ownerless files, each with the name of the account that owned it. */
export const orphansAnswer = successMessage(
  arrayOf({
    ...fileRow,
    required: [...fileRow.required, 'former_owner'],
    properties: { ...fileRow.properties, former_owner: nullable(string) },
  }),
);
export const madeFile = successMessage(object({ file_id: integer }));
export const keywordAnswer = successMessage(object({ count: integer }));
export const historyAnswer = successMessage(
  arrayOf({ ...snapshot, required: [...snapshot.required, 'message'] }),
);
export const publishAnswer = successMessage(object({ publish_id: integer, time: number }));
/** files/getfile: the files and their features, or with `quick_published` the published layer. */
export const getFileAnswer = successMessage({
  oneOf: [object({ file: arrayOf(fileRow), geojson: featureCollection }), featureCollection],
});

const node = { type: 'object', required: ['id', 'intent', 'children'] } as const;
export const compileAnswer = successMessage(
  object(
    {
      hierarchy: arrayOf(node),
      issues: arrayOf(
        object({ severity: { enum: ['error', 'warning'] }, antecedent: { type: 'object' }, message: string }),
      ),
      changes: {
        oneOf: [
          { const: false },
          object({ added: arrayOf(string), removed: arrayOf(string), changed: arrayOf(string) }),
        ],
      },
      features: {},
    },
    ['features'],
  ),
);
