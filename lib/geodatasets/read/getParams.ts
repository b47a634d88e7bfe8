import {
  geojsonParams,
  layerParam,
  readFilterParams,
  sourceParams,
  tileAddressParams,
} from './readParams.ts';

/**
 * The declared input of `GET /api/geodatasets/get[/{layer}]` (and `POST /api/geodatasets/get` with the
 * same parameters in a body): functions/geodatasets/get.ts passes these schemas to `endpoint()`, the tile
 * ETag (lib/geodatasets/tiles/tileCache.ts) keys on `TILE_PARAMS`, and the gateway cache plugin
 * (serverless/plugins/gateway-cache.cjs) keys the stage cache on every declared query parameter. Adding a
 * parameter here is the one change that reaches all three (docs/tiles.md, "Caching").
 */
export const getProperties = {
  layer: layerParam,
  ...tileAddressParams,
  ...readFilterParams,
  ...sourceParams,
  ...geojsonParams,
} as const;

/** Query (coerced from strings) and body (a JSON object or a form) take the same parameters. */
export const getQuery = { type: 'object', properties: getProperties } as const;
export const getBody = { type: 'object', properties: getProperties } as const;
export const getPath = { type: 'object', properties: { layer: layerParam } } as const;

/** Every declared parameter name: each may change the answer (the gateway cache key). */
export type GetParam = keyof typeof getProperties;
export const GET_PARAMS = Object.keys(getProperties) as GetParam[];

/**
 * The parameters that change a tile (`type=mvt`): the tile address, the TileJSON version `v`, every read
 * filter and `_source`. `layer` is not among them: the ETag holds the dataset's id and version instead, so
 * `/get/{layer}` and `/get?layer=` share it. `limit`, `offset`, `limited` and `stats` do not apply to tiles.
 */
export const TILE_PARAMS = [
  ...(Object.keys(tileAddressParams) as (keyof typeof tileAddressParams)[]),
  ...(Object.keys(readFilterParams) as (keyof typeof readFilterParams)[]),
  ...(Object.keys(sourceParams) as (keyof typeof sourceParams)[]),
] satisfies GetParam[];
