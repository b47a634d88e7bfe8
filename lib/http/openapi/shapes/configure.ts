import { successWith } from '../describe.ts';
import { arrayOf, boolean, dateTime, integer, object, string } from '../json.ts';

/** Response shapes of /api/configure (docs/contract.md#3-configure-api, docs/configure.md). */

const nameAndUuid = object({ name: string, uuid: string });

/** A stored change: the new version (or the current one when nothing changed), and what it assigned. */
export const changeAnswer = successWith(
  {
    message: string,
    mission: string,
    version: integer,
    newlyAddedUUIDs: arrayOf(nameAndUuid),
    removedUUIDs: arrayOf(nameAndUuid),
    changed: boolean,
  },
  ['mission', 'version'],
);

export const cloneAnswer = successWith(
  { mission: string, version: integer, clonedFrom: object({ mission: string, version: integer }) },
  ['mission', 'version', 'clonedFrom'],
);

export const destroyAnswer = successWith({ message: string, mission: string }, ['message', 'mission']);

/** A configuration: an object (its members are the mission's own; docs/configure.md names those relied on). */
const config = { type: 'object' } as const;

/** `GET /get` without `full`: the bare configuration, as MMGIS answers it (every stored one has these). */
export const bareConfig = { type: 'object', required: ['msv', 'layers', 'tools'] } as const;

const record = { mission: string, version: integer, config, createdAt: dateTime };
/** `GET /get?full=true`: the record with its metadata. */
export const fullConfig = successWith(record, Object.keys(record));

export const exportAnswer = successWith({ missions: arrayOf(object(record)) }, ['missions']);

const issue = object({
  type: { enum: ['error', 'warning'] },
  reason: string,
  invalidFields: arrayOf(string),
});
/** `POST /validate`: HTTP 200 either way; `valid` says which. */
export const validationAnswer = {
  oneOf: [
    successWith({ valid: { const: true }, warnings: arrayOf(issue) }, ['valid', 'warnings']),
    object({
      status: { const: 'failure' },
      message: string,
      valid: { const: false },
      errors: arrayOf(issue),
      warnings: arrayOf(issue),
    }),
  ],
} as const;

export const missionsAnswer = successWith({ missions: arrayOf(string) }, ['missions']);

export const versionsAnswer = successWith(
  { mission: string, versions: arrayOf(object({ mission: string, version: integer, createdAt: dateTime })) },
  ['mission', 'versions'],
);
