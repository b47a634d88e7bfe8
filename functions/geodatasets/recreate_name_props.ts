import { geojsonFileWriteProps } from './append_props.ts';

/** POST /api/geodatasets/recreate/:name/:start_end_prop — startProp,endProp from the URL (the options as append_props's). */
export const handler = geojsonFileWriteProps('recreate');
