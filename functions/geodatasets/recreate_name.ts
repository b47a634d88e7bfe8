import { geojsonFileWrite } from './append.ts';

/** POST /api/geodatasets/recreate/:name — the body is the GeoJSON file (the options as append's). */
export const handler = geojsonFileWrite('recreate');
