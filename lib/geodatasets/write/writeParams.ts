import { MAX_NAME_LENGTH, MAX_PATH_LENGTH } from '../read/readParams.ts';

/**
 * The declared path and query of the writes whose body is the GeoJSON file itself (POST
 * /append/:name[/:start_end_prop], POST /recreate/:name[/:start_end_prop]; writeRequest.ts reads them).
 * Path segments arrive URL-encoded (decoded by `parseGeojsonBody`): up to three characters each.
 */
export const writePath = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 3 * MAX_NAME_LENGTH },
    /** `startProp,endProp`. */
    start_end_prop: { type: 'string', maxLength: 3 * (2 * MAX_PATH_LENGTH + 1) },
  },
  required: ['name'],
} as const;

const prop = { type: 'string', maxLength: MAX_PATH_LENGTH } as const;

export const writeQuery = {
  type: 'object',
  properties: {
    start_prop: prop,
    end_prop: prop,
    group_id_prop: prop,
    feature_id_prop: prop,
    filename: { type: 'string', maxLength: 1024 },
  },
} as const;
