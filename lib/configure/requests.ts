/**
 * JSON Schemas of the configure endpoints' inputs (docs/contract.md#3-configure-api): the members every
 * change shares, once. The operations (operations.ts) check the rest (names, placement, layers).
 */

const mission = { type: 'string' } as const;
const forceClientUpdate = { type: 'boolean' } as const;

/** `{mission}`: add, destroy; also the query of versions. */
export const missionOnly = { type: 'object', required: ['mission'], properties: { mission } } as const;

/** A stored change: upsert and updateInitialView. */
export const changeBody = {
  type: 'object',
  required: ['mission'],
  properties: { mission, forceClientUpdate },
} as const;

export const addLayerBody = { ...changeBody, required: ['mission', 'layer'] } as const;
export const updateLayerBody = { ...changeBody, required: ['mission', 'layerUUID', 'layer'] } as const;
export const removeLayerBody = { ...changeBody, required: ['mission', 'layerUUID'] } as const;

export const cloneBody = {
  type: 'object',
  required: ['existingMission', 'cloneMission'],
  properties: { existingMission: mission, cloneMission: mission },
} as const;
