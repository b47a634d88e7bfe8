import { assertMissionName } from '#lib/auth/missionName.ts';
import type { Db } from '#lib/db/index.ts';
import { badRequest, conflict, notFound } from '#lib/errors.ts';
import { type ClientMessage, type ConfigEvent, pushToMission, pushToViewers } from '#lib/events/push.ts';
import { toNumber } from '#lib/numbers.ts';
import {
  assignUuids,
  type Config,
  insertLayers,
  type Layer,
  type NamedUuid,
  namedUuids,
  parsePlacement,
  removeLayers,
  setInitialView,
  updateLayer,
} from './layerTree.ts';
import { isPlainObject, MAX_JSON_DEPTH, MAX_VERSION, nestedDeeperThan, parseJsonish } from './names.ts';
import { type ConfigRecord, commitChange, destroyMission, readLatest, readVersion } from './store.ts';
import { templateConfig } from './template.ts';

/**
 * The Configure API's changes (docs/configure.md): each parses its input (400 naming the field), runs as
 * one locked read-change-validate-store step, and pushes an event to the mission's WebSocket subscribers
 * when `forceClientUpdate` is true and a version was stored.
 */
export interface ChangeResponse {
  status: 'success';
  mission: string;
  version: number;
  [key: string]: unknown;
}

function requireCurrent(current: ConfigRecord | undefined, mission: string): ConfigRecord {
  if (!current) throw notFound(`Unknown mission '${mission}'.`);
  return current;
}

interface Stored {
  stored: boolean;
  version: number;
  config: unknown;
}

/** What the MMGIS client's message says about a change (docs/live-updates.md). */
interface LiveChange {
  type: ClientMessage['info']['type'];
  layerName?: string | string[];
}

/** The configure app's page id (`id`, a number or string it sends with upsert), echoed in `info.id`. */
function pageId(value: unknown): string | number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.length <= 64) return value;
  return undefined;
}

/**
 * After a stored change: the MMGIS client's message to every connection that may view the mission (always,
 * as the established server does), and the `{type:'config'}` event to the mission's subscribers when
 * `forceClientUpdate` is true.
 */
async function notify(
  db: Db,
  input: { forceClientUpdate?: unknown; id?: unknown },
  res: Stored,
  event: Omit<ConfigEvent, 'type' | 'forceClientUpdate'>,
  change: LiveChange,
): Promise<void> {
  if (!res.stored) return;
  const force = input.forceClientUpdate === true;
  const id = pageId(input.id);
  const message: ClientMessage = {
    info: { ...change, route: 'config', ...(id === undefined ? {} : { id }), mission: event.mission },
    body: { mission: event.mission, version: res.version, config: res.config },
    forceClientUpdate: force,
  };
  await Promise.all([
    pushToViewers(db.sql, message),
    force ? pushToMission(db.sql, { type: 'config', ...event, forceClientUpdate: true }) : null,
  ]);
}

/** Refuses values nested deeper than any real configuration (they would exhaust stacks downstream). */
function assertDepth(value: unknown, field: string) {
  if (nestedDeeperThan(value)) throw badRequest(`'${field}' is nested deeper than ${MAX_JSON_DEPTH} levels.`);
}

/** A config from a request: an object (or a JSON string of one); other values are left to validation. */
function requestConfig(config: unknown): unknown {
  const parsed = parseJsonish(config, 'config');
  assertDepth(parsed, 'config');
  return parsed;
}

function withUuids(config: unknown): { config: Config; assigned: NamedUuid[] } {
  return isPlainObject(config) ? assignUuids(config) : { config: config as Config, assigned: [] };
}

export interface UpsertInput {
  mission: unknown;
  config?: unknown;
  version?: unknown;
  forceClientUpdate?: unknown;
  /** The configure app's page id, echoed in the live message. */
  id?: unknown;
}

/** Creates or replaces a mission's configuration; `version` (rollback) wins over `config`. */
export async function upsert(db: Db, input: UpsertInput): Promise<ChangeResponse> {
  const mission = assertMissionName(input.mission);
  const rollback = input.version !== undefined && input.version !== null;
  if (
    rollback &&
    !(
      Number.isInteger(input.version) &&
      (input.version as number) >= 1 &&
      (input.version as number) <= MAX_VERSION
    )
  ) {
    throw badRequest(`'version' must be an integer from 1 to ${MAX_VERSION}.`);
  }
  if (!rollback && (input.config === undefined || input.config === null)) {
    throw badRequest("Send 'config' (a full configuration object) or 'version' (to roll back to).");
  }
  const sent = rollback ? undefined : requestConfig(input.config);
  const res = await commitChange(db, mission, async (_current, tx) => {
    let config = sent;
    if (rollback) {
      const old = await readVersion(tx, mission, input.version as number);
      if (!old) throw notFound(`Mission '${mission}' has no version ${input.version}.`);
      config = old.config;
    }
    const { config: next, assigned } = withUuids(config);
    return { config: next, extra: assigned };
  });
  await notify(db, input, res, { action: 'upsert', mission, version: res.version }, { type: 'upsert' });
  return { status: 'success', mission, version: res.version, newlyAddedUUIDs: res.extra };
}

function requestLayers(value: unknown): { list: Layer[]; many: boolean } {
  const layer = parseJsonish(value, 'layer');
  assertDepth(layer, 'layer');
  const list = Array.isArray(layer) ? layer : [layer];
  if (layer === undefined || layer === null || list.length === 0) {
    throw badRequest("'layer' must be a layer object or a non-empty array of layer objects.");
  }
  list.forEach((l, i) => {
    if (!isPlainObject(l)) {
      throw badRequest(`'layer${Array.isArray(layer) ? `[${i}]` : ''}' must be a layer object.`);
    }
  });
  return { list, many: Array.isArray(layer) };
}

export interface AddLayerInput {
  mission: unknown;
  layer: unknown;
  placement?: unknown;
  forceClientUpdate?: unknown;
}

/** Inserts one layer or an ordered list at `placement` (default: end of the top level). */
export async function addLayer(db: Db, input: AddLayerInput): Promise<ChangeResponse> {
  const mission = assertMissionName(input.mission);
  const { list: layers, many } = requestLayers(input.layer);
  const placement = parsePlacement(input.placement);
  const res = await commitChange(db, mission, (current) => {
    const base = requireCurrent(current, mission).config;
    const { config: added, assigned } = assignUuids({ layers });
    const uuids = (added.layers as Layer[]).flatMap((l) => namedUuids(l).map((n) => n.uuid));
    const top = (added.layers as Layer[]).map((l) => String(l.uuid));
    return { config: insertLayers(base, added.layers, placement), extra: { assigned, uuids, top } };
  });
  const top = res.extra.top;
  await notify(
    db,
    input,
    res,
    { action: 'addLayer', mission, version: res.version, layerUUIDs: res.extra.uuids },
    { type: 'addLayer', layerName: many ? top : top[0] },
  );
  return { status: 'success', mission, version: res.version, newlyAddedUUIDs: res.extra.assigned };
}

function requestUuid(value: unknown, field = 'layerUUID'): string {
  if (typeof value !== 'string' || value === '') throw badRequest(`'${field}' must be a non-empty string.`);
  return value;
}

export interface UpdateLayerInput {
  mission: unknown;
  layerUUID: unknown;
  layer: unknown;
  placement?: unknown;
  forceClientUpdate?: unknown;
}

/** Deep merges a partial layer over the layer `layerUUID`; moves it when `placement` is given. */
export async function updateLayerOf(db: Db, input: UpdateLayerInput): Promise<ChangeResponse> {
  const mission = assertMissionName(input.mission);
  const uuid = requestUuid(input.layerUUID);
  const patch = parseJsonish(input.layer, 'layer');
  assertDepth(patch, 'layer');
  if (!isPlainObject(patch)) throw badRequest("'layer' must be a (partial) layer object.");
  const placement = parsePlacement(input.placement);
  const res = await commitChange(db, mission, (current) => {
    const next = updateLayer(requireCurrent(current, mission).config, uuid, patch, placement);
    const { config, assigned } = assignUuids(next);
    return { config, extra: assigned };
  });
  await notify(
    db,
    input,
    res,
    { action: 'updateLayer', mission, version: res.version, layerUUIDs: [uuid] },
    { type: 'updateLayer', layerName: uuid },
  );
  return { status: 'success', mission, version: res.version, newlyAddedUUIDs: res.extra };
}

export interface RemoveLayerInput {
  mission: unknown;
  layerUUID: unknown;
  forceClientUpdate?: unknown;
}

/** Removes layers (with their sublayers); any unknown uuid → 404 and nothing removed. */
export async function removeLayer(db: Db, input: RemoveLayerInput): Promise<ChangeResponse> {
  const mission = assertMissionName(input.mission);
  const raw = input.layerUUID;
  const uuids = Array.isArray(raw) ? raw : [raw];
  if (raw === undefined || raw === null || uuids.length === 0) {
    throw badRequest("'layerUUID' must be a uuid or a non-empty array of uuids.");
  }
  uuids.forEach((u, i) => {
    requestUuid(u, Array.isArray(raw) ? `layerUUID[${i}]` : 'layerUUID');
  });
  const res = await commitChange(db, mission, (current) => {
    const { config, removed } = removeLayers(requireCurrent(current, mission).config, uuids as string[]);
    return { config, extra: removed };
  });
  await notify(
    db,
    input,
    res,
    { action: 'removeLayer', mission, version: res.version, layerUUIDs: res.extra.map((r) => r.uuid) },
    { type: 'removeLayer', layerName: [...new Set(uuids as string[])] },
  );
  return { status: 'success', mission, version: res.version, removedUUIDs: res.extra };
}

export interface InitialViewInput {
  mission: unknown;
  latitude?: unknown;
  longitude?: unknown;
  zoom?: unknown;
  forceClientUpdate?: unknown;
}

function viewValue(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = toNumber(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw badRequest(`'${field}' must be a number ${range}.`);
  }
  return n;
}

/** Sets the given entries of `msv.view`; no change → the current version, nothing stored. */
export async function updateInitialView(db: Db, input: InitialViewInput): Promise<ChangeResponse> {
  const mission = assertMissionName(input.mission);
  const view = {
    latitude: viewValue(input.latitude, 'latitude', -90, 90),
    longitude: viewValue(input.longitude, 'longitude', -360, 360),
    zoom: viewValue(input.zoom, 'zoom', 0, Number.POSITIVE_INFINITY),
  };
  if (view.latitude === undefined && view.longitude === undefined && view.zoom === undefined) {
    throw badRequest("Send at least one of 'latitude', 'longitude' and 'zoom'.");
  }
  const res = await commitChange(db, mission, (current) => {
    const { config, changed } = setInitialView(requireCurrent(current, mission).config, view);
    return { config: changed ? config : null, extra: changed };
  });
  // The established server stores the new view through its upsert: the same message as an upsert.
  await notify(
    db,
    input,
    res,
    { action: 'updateInitialView', mission, version: res.version },
    { type: 'upsert' },
  );
  return { status: 'success', mission, version: res.version, changed: res.stored };
}

/** Creates a mission (409 when it exists) from `config`, or from the template when none is given. */
export async function addMission(db: Db, input: { mission: unknown; config?: unknown }) {
  const mission = assertMissionName(input.mission);
  const sent =
    input.config === undefined || input.config === null
      ? templateConfig(mission)
      : requestConfig(input.config);
  const res = await commitChange(db, mission, (current) => {
    if (current) throw conflict(`Mission '${mission}' already exists.`);
    const { config, assigned } = withUuids(sent);
    return { config, extra: assigned };
  });
  return {
    status: 'success' as const,
    message: `Successfully created mission '${mission}'.`,
    mission,
    version: res.version,
    newlyAddedUUIDs: res.extra,
  };
}

/**
 * Copies the latest configuration of `existingMission` as version 1 of `cloneMission` (its `msv.mission`
 * set to the new name). 404 when the source is unknown, 409 when the clone exists.
 */
export async function cloneMission(db: Db, input: { existingMission: unknown; cloneMission: unknown }) {
  const from = assertMissionName(input.existingMission, 'existingMission');
  const to = assertMissionName(input.cloneMission, 'cloneMission');
  const res = await commitChange(db, to, async (current, tx) => {
    if (current) throw conflict(`Mission '${to}' already exists.`);
    const source = await readLatest(tx, from);
    if (!source) throw notFound(`Unknown mission '${from}'.`);
    const config = structuredClone(source.config);
    if (isPlainObject(config.msv)) config.msv.mission = to;
    return { config, extra: source.version };
  });
  return {
    status: 'success' as const,
    mission: to,
    version: res.version,
    clonedFrom: { mission: from, version: res.extra },
  };
}

/** Removes every version of a mission. */
export async function destroy(db: Db, input: { mission: unknown }) {
  const mission = assertMissionName(input.mission);
  const versions = await destroyMission(db, mission);
  return {
    status: 'success' as const,
    message: `Mission '${mission}' and its ${versions} version${versions === 1 ? '' : 's'} were removed.`,
    mission,
  };
}
