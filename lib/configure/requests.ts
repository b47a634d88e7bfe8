import { missionName as mission } from '#lib/auth/schemas.ts';

export { mission };

import { MAX_VERSION } from './storedConfig.ts';

/**
 * JSON Schemas of the configure endpoints' inputs (docs/configure.md, "Inputs"): every field each endpoint
 * reads, with its bounds, once. What a schema cannot say (a layer path or uuid that must exist, a valid
 * configuration) is checked by the operations (operations.ts, layerTree.ts, validate.ts).
 *
 * The handlers compose their bodies from these. A configuration or a layer may also arrive as the JSON
 * text of one (the configure app posts `config: JSON.stringify(...)`): the handlers declare those fields
 * with `jsonOr` (lib/http/jsonField.ts), which checks the text's value against the same schema.
 */

export const forceClientUpdate = { type: 'boolean' } as const;

/** The configure app's page id (`window.configId`, a number), echoed in the live message's `info.id`. */
export const id = {
  type: ['string', 'number'],
  maxLength: 64,
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
} as const;

/** A stored version number (PostgreSQL `integer`). */
export const version = { type: 'integer', minimum: 1, maximum: MAX_VERSION } as const;

/**
 * The bounds of a whole mission configuration, whatever its type (`validate` answers a non-object
 * config as invalid, HTTP 200): breadth here, depth by the service-wide input guard, size by the body
 * limit; its content is checked by `validateConfig`.
 */
export const configBounds = {
  maxProperties: 256,
  properties: { layers: { maxItems: 10_000 }, tools: { maxItems: 256 } },
} as const;

/** A whole mission configuration to store: an object within `configBounds`. */
export const configObject = { type: 'object', ...configBounds } as const;

/** Most bytes of a configuration sent as JSON text (the request body limit). */
export const MAX_CONFIG_TEXT = 6 * 1024 * 1024;

/** One layer (or a partial one, for updateLayer): an object; its content is checked with the config. */
export const layerObject = {
  type: 'object',
  maxProperties: 256,
  properties: {
    name: { maxLength: 1024 },
    uuid: { maxLength: 256 },
    sublayers: { maxItems: 10_000 },
  },
} as const;

/** addLayer's `layer`: one layer object, or a list of 1 to 1000 of them (inserted in order). */
export const layerOrLayers = {
  if: { type: 'array' },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
  then: { type: 'array', minItems: 1, maxItems: 1000, items: layerObject },
  else: layerObject,
} as const;

/** Most bytes of a layer sent as JSON text. */
export const MAX_LAYER_TEXT = 1024 * 1024;

/** A layer's uuid as a request names it (uuids of older configurations are not always v4 uuids). */
export const layerUuid = { type: 'string', minLength: 1, maxLength: 256 } as const;

/**
 * Where layers go: `path`, dot-separated header names ('' or absent: the top level), and `index` in that
 * list (absent: the end; any integer, fitted to the list).
 */
export const placement = {
  type: ['object', 'null'],
  maxProperties: 8,
  properties: {
    path: { type: ['string', 'null'], maxLength: 4096 },
    // Any integer: one out of range is fitted to the nearest valid position (docs/configure.md), so the
    // bounds are only those of a finite number; a fraction or text is refused.
    index: { type: ['integer', 'null'], minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE },
  },
} as const;

/** `{mission}`: add (with an optional config), destroy; also the query of versions. */
export const missionOnly = { type: 'object', required: ['mission'], properties: { mission } } as const;

/** updateInitialView's entries of `msv.view` (at least one: `atLeastOneView` in operations.ts). */
export const latitude = { type: ['number', 'null'], minimum: -90, maximum: 90 } as const;
export const longitude = { type: ['number', 'null'], minimum: -360, maximum: 360 } as const;
export const zoom = { type: ['number', 'null'], minimum: 0, maximum: 40 } as const;

/** removeLayer's `layerUUID`: one uuid or a list of 1 to 1000 (a uuid listed twice is removed once). */
export const layerUuids = {
  if: { type: 'array' },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
  then: { type: 'array', minItems: 1, maxItems: 1000, items: layerUuid },
  else: layerUuid,
} as const;

export const cloneBody = {
  type: 'object',
  required: ['existingMission', 'cloneMission'],
  properties: { existingMission: mission, cloneMission: mission },
} as const;
