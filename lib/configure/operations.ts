import type { Db } from '#lib/db/index.ts';
import { badRequest, conflict, notFound } from '#lib/errors.ts';
import { type ClientMessage, type ConfigEvent, pushToMission, pushToViewers } from '#lib/events/push.ts';
import {
  assignUuids,
  type Config,
  insertLayers,
  type Layer,
  namedUuids,
  type Placement,
  removeLayers,
  setInitialView,
  updateLayer,
} from './layerTree.ts';
import { type ConfigRecord, commitChange, destroyMission, readLatest, readVersion } from './store.ts';
import { isPlainObject } from './storedConfig.ts';
import { templateConfig } from './template.ts';

/**
 * The Configure API's changes (docs/configure.md): each takes its endpoint's validated input (the schemas
 * in requests.ts), runs as one locked read-change-validate-store step, and pushes an event to the
 * mission's WebSocket subscribers when `forceClientUpdate` is true and a version was stored.
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

/**
 * After a stored change: the MMGIS client's message to every connection that may view the mission (always,
 * as the established server does), and the `{type:'config'}` event to the mission's subscribers when
 * `forceClientUpdate` is true.
 */
async function notify(
  db: Db,
  input: { forceClientUpdate?: boolean; id?: string | number },
  res: Stored,
  event: Omit<ConfigEvent, 'type' | 'forceClientUpdate'>,
  change: LiveChange,
): Promise<void> {
  if (!res.stored) return;
  const force = input.forceClientUpdate === true;
  const id = input.id;
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

/** What every change shares (requests.ts): the mission, and the live message's options. */
interface ChangeInput {
  mission: string;
  forceClientUpdate?: boolean;
  /** The configure app's page id, echoed in the live message. */
  id?: string | number;
}

export interface UpsertInput extends ChangeInput {
  /** Required unless `version` is given (the schema says so). */
  config?: Config;
  version?: number | null;
}

/** Creates or replaces a mission's configuration; `version` (rollback) wins over `config`. */
export async function upsert(db: Db, input: UpsertInput): Promise<ChangeResponse> {
  const { mission, version } = input;
  const res = await commitChange(db, mission, async (_current, tx) => {
    let config = input.config as Config;
    if (typeof version === 'number') {
      const old = await readVersion(tx, mission, version);
      if (!old) throw notFound(`Mission '${mission}' has no version ${version}.`);
      config = old.config;
    }
    const { config: next, assigned } = assignUuids(config);
    return { config: next, extra: assigned };
  });
  await notify(db, input, res, { action: 'upsert', mission, version: res.version }, { type: 'upsert' });
  return { status: 'success', mission, version: res.version, newlyAddedUUIDs: res.extra };
}

/** Where layers go, as a request states it (requests.ts: `placement`). */
export interface PlacementInput {
  path?: string | null;
  index?: number | null;
}

function placementOf(p: PlacementInput | null | undefined): Placement | undefined {
  return p ? { path: p.path ?? '', index: p.index ?? undefined } : undefined;
}

export interface AddLayerInput extends ChangeInput {
  /** One layer, or a non-empty list inserted in order. */
  layer: Layer | Layer[];
  placement?: PlacementInput | null;
}

/** Inserts one layer or an ordered list at `placement` (default: end of the top level). */
export async function addLayer(db: Db, input: AddLayerInput): Promise<ChangeResponse> {
  const { mission } = input;
  const many = Array.isArray(input.layer);
  const layers = many ? (input.layer as Layer[]) : [input.layer as Layer];
  const placement = placementOf(input.placement);
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

export interface UpdateLayerInput extends ChangeInput {
  layerUUID: string;
  /** A partial layer. */
  layer: Layer;
  placement?: PlacementInput | null;
}

/** Deep merges a partial layer over the layer `layerUUID`; moves it when `placement` is given. */
export async function updateLayerOf(db: Db, input: UpdateLayerInput): Promise<ChangeResponse> {
  const { mission, layerUUID: uuid, layer: patch } = input;
  const placement = placementOf(input.placement);
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

export interface RemoveLayerInput extends ChangeInput {
  /** One uuid or a non-empty list (a uuid listed twice is removed once). */
  layerUUID: string | string[];
}

/** Removes layers (with their sublayers); any unknown uuid → 404 and nothing removed. */
export async function removeLayer(db: Db, input: RemoveLayerInput): Promise<ChangeResponse> {
  const { mission } = input;
  const uuids = [...new Set(Array.isArray(input.layerUUID) ? input.layerUUID : [input.layerUUID])];
  const res = await commitChange(db, mission, (current) => {
    const { config, removed } = removeLayers(requireCurrent(current, mission).config, uuids);
    return { config, extra: removed };
  });
  await notify(
    db,
    input,
    res,
    { action: 'removeLayer', mission, version: res.version, layerUUIDs: res.extra.map((r) => r.uuid) },
    { type: 'removeLayer', layerName: uuids },
  );
  return { status: 'success', mission, version: res.version, removedUUIDs: res.extra };
}

export interface InitialViewInput extends ChangeInput {
  latitude?: number | null;
  longitude?: number | null;
  zoom?: number | null;
}

/** An initial view change names at least one of its three entries (a rule across fields). */
function atLeastOneView(view: { latitude?: number; longitude?: number; zoom?: number }) {
  if (view.latitude === undefined && view.longitude === undefined && view.zoom === undefined) {
    throw badRequest("Send at least one of 'latitude', 'longitude' and 'zoom'.");
  }
}

/** Sets the given entries of `msv.view`; no change → the current version, nothing stored. */
export async function updateInitialView(db: Db, input: InitialViewInput): Promise<ChangeResponse> {
  const { mission } = input;
  const view = {
    latitude: input.latitude ?? undefined,
    longitude: input.longitude ?? undefined,
    zoom: input.zoom ?? undefined,
  };
  atLeastOneView(view);
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
export async function addMission(db: Db, input: { mission: string; config?: Config }) {
  const { mission } = input;
  const sent = input.config ?? templateConfig(mission);
  const res = await commitChange(db, mission, (current) => {
    if (current) throw conflict(`Mission '${mission}' already exists.`);
    const { config, assigned } = assignUuids(sent);
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
export async function cloneMission(db: Db, input: { existingMission: string; cloneMission: string }) {
  const { existingMission: from, cloneMission: to } = input;
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
export async function destroy(db: Db, input: { mission: string }) {
  const { mission } = input;
  const versions = await destroyMission(db, mission);
  return {
    status: 'success' as const,
    message: `Mission '${mission}' and its ${versions} version${versions === 1 ? '' : 's'} were removed.`,
    mission,
  };
}
