import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '#lib/errors.ts';
import { UUID } from '#lib/formats.ts';
import { isPlainObject } from './storedConfig.ts';

/**
 * Pure operations on a mission configuration's layer tree (docs/configure.md, docs/contract.md#5-edge-cases-decided). A header is a layer
 * with `type: 'header'` whose children are in `sublayers`. Every function returns a new config (the input
 * is never mutated) or throws a 400/404 `HttpError` naming what is wrong.
 */
export type Layer = Record<string, any>;
export type Config = Record<string, any>;

export interface Placement {
  /** Dot-separated header names ('' = top level). */
  path: string;
  /** Position in the target list; undefined = end. Clamped to [0, length] when applied. */
  index?: number;
}

export interface NamedUuid {
  name: string;
  uuid: string;
  /** The value a layer carried in `uuid` that was not a UUID string, when a new one replaced it. */
  replacesBadUUID?: unknown;
}

export const isHeader = (layer: unknown): boolean => isPlainObject(layer) && layer.type === 'header';

const clone = <T>(x: T): T => structuredClone(x);

function layersOf(config: Config): Layer[] {
  if (!Array.isArray(config.layers)) config.layers = [];
  return config.layers;
}

function sublayersOf(header: Layer): Layer[] {
  if (!Array.isArray(header.sublayers)) header.sublayers = [];
  return header.sublayers;
}

/** Every layer of the tree, depth first in display order, with its depth (0 = top level). */
export function* walkLayers(layers: unknown, depth = 0): Generator<{ layer: Layer; depth: number }> {
  if (!Array.isArray(layers)) return;
  for (const layer of layers) {
    if (!isPlainObject(layer)) continue;
    yield { layer, depth };
    if (Array.isArray(layer.sublayers)) yield* walkLayers(layer.sublayers, depth + 1);
  }
}

export interface Found {
  layer: Layer;
  /** The array holding the layer (the config's `layers` or a header's `sublayers`). */
  siblings: Layer[];
  index: number;
}

/** Finds the layer whose `uuid` is `uuid` anywhere in the tree. */
export function findLayer(layers: unknown, uuid: string): Found | undefined {
  if (!Array.isArray(layers)) return undefined;
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i];
    if (!isPlainObject(layer)) continue;
    if (layer.uuid === uuid) return { layer, siblings: layers, index: i };
    const inner = findLayer(layer.sublayers, uuid);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * The header a placement path names (null for the top level). Each segment is a header name at that
 * level; a segment that is a whole number is an index when no header at that level has that name.
 */
export function resolveHeader(layers: Layer[], path: string): Layer | null {
  if (path === '') return null;
  let level: Layer[] = layers;
  let header: Layer | null = null;
  const done: string[] = [];
  for (const segment of path.split('.')) {
    const where = done.length ? `inside '${done.join('.')}'` : 'at the top level';
    let next: Layer | undefined = level.find((l) => isHeader(l) && l.name === segment);
    if (!next && /^\d+$/.test(segment)) {
      const byIndex = level[Number(segment)];
      if (byIndex !== undefined && !isHeader(byIndex)) {
        throw badRequest(
          `'placement.path' '${path}': the layer at index ${segment} ${where} is not a header.`,
        );
      }
      next = byIndex;
    }
    if (!next) {
      if (level.some((l) => isPlainObject(l) && l.name === segment)) {
        throw badRequest(`'placement.path' '${path}': the layer '${segment}' ${where} is not a header.`);
      }
      throw badRequest(`'placement.path' '${path}' not found: no header '${segment}' ${where}.`);
    }
    header = next;
    level = Array.isArray(next.sublayers) ? next.sublayers : [];
    done.push(segment);
  }
  return header;
}

/** Fits `index` into [0, length]; undefined means the end. */
export function clampIndex(index: number | undefined, length: number): number {
  if (index === undefined) return length;
  return Math.min(Math.max(index, 0), length);
}

/** Inserts one layer or an ordered list of layers at `placement` (default: end of the top level). */
export function insertLayers(config: Config, layers: Layer | Layer[], placement?: Placement): Config {
  const next = clone(config);
  const list = clone(Array.isArray(layers) ? layers : [layers]);
  const header = resolveHeader(layersOf(next), placement?.path ?? '');
  const target = header ? sublayersOf(header) : layersOf(next);
  target.splice(clampIndex(placement?.index, target.length), 0, ...list);
  return next;
}

function setOwn(target: Record<string, any>, key: string, value: unknown) {
  // Defined, not assigned: a JSON key "__proto__" stays data and never becomes a prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Deep merge of `patch` over `base`: objects merge key by key; arrays, scalars and null replace.
 * @example deepMerge({a: {b: 1, c: [1]}}, {a: {c: [2]}}) // {a: {b: 1, c: [2]}}
 */
export function deepMerge(base: Record<string, any>, patch: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const key of Object.keys(base)) setOwn(out, key, clone(base[key]));
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    setOwn(
      out,
      key,
      isPlainObject(value) && isPlainObject(base[key]) ? deepMerge(base[key], value) : clone(value),
    );
  }
  return out;
}

function contains(root: Layer, target: Layer): boolean {
  for (const { layer } of walkLayers([root])) if (layer === target) return true;
  return false;
}

/**
 * Deep merges `patch` over the layer `uuid` (renaming when `patch.name` is given). Without `placement`
 * the layer keeps its place; with it, the layer moves there (path resolved before the layer is taken
 * out, index applied after). Changing the uuid is a 400; an unknown uuid a 404.
 */
export function updateLayer(config: Config, uuid: string, patch: Layer, placement?: Placement): Config {
  if (patch.uuid !== undefined && patch.uuid !== uuid) {
    throw badRequest(`'layer.uuid' cannot be changed (the layer's uuid is '${uuid}').`);
  }
  const next = clone(config);
  const found = findLayer(layersOf(next), uuid);
  if (!found) throw notFound(`No layer with uuid '${uuid}' in this mission's configuration.`);
  const merged = deepMerge(found.layer, patch);
  if (!placement) {
    found.siblings[found.index] = merged;
    return next;
  }
  const header = resolveHeader(layersOf(next), placement.path);
  if (header && contains(found.layer, header)) {
    throw badRequest(`'placement.path' '${placement.path}' is inside the layer being moved.`);
  }
  found.siblings.splice(found.index, 1);
  const target = header ? sublayersOf(header) : layersOf(next);
  target.splice(clampIndex(placement.index, target.length), 0, merged);
  return next;
}

/** `{name, uuid}` of a layer and all its sublayers, depth first. */
export function namedUuids(layer: Layer): NamedUuid[] {
  const out: NamedUuid[] = [];
  for (const { layer: l } of walkLayers([layer])) out.push({ name: l.name, uuid: l.uuid });
  return out;
}

/**
 * Removes the layers `uuids` with their sublayers. If any uuid is unknown nothing is removed (404 listing
 * them). `removed` lists every removed layer, sublayers included, once each.
 */
export function removeLayers(config: Config, uuids: string[]): { config: Config; removed: NamedUuid[] } {
  const next = clone(config);
  const wanted = [...new Set(uuids)];
  const unknown = wanted.filter((u) => !findLayer(layersOf(next), u));
  if (unknown.length) {
    throw notFound(
      `No layer with uuid ${unknown.map((u) => `'${u}'`).join(', ')} in this mission's configuration.`,
    );
  }
  const removed: NamedUuid[] = [];
  const seen = new Set<string>();
  for (const uuid of wanted) {
    const found = findLayer(layersOf(next), uuid);
    if (!found) continue; // inside a layer removed earlier in this call
    found.siblings.splice(found.index, 1);
    for (const entry of namedUuids(found.layer)) {
      if (seen.has(entry.uuid)) continue;
      seen.add(entry.uuid);
      removed.push(entry);
    }
  }
  return { config: next, removed };
}

const missingUuid = (uuid: unknown) => uuid === undefined || uuid === null || uuid === '';

/**
 * Gives every layer without a `uuid` a new v4 UUID, and every layer whose `uuid` is not a UUID string
 * (the configure app's numeric placeholder for a new layer) a new one in its place, listed with
 * `replacesBadUUID` (docs/configure.md). Returns the new config and what was assigned.
 */
export function assignUuids(
  config: Config,
  newUuid: () => string = randomUUID,
): { config: Config; assigned: NamedUuid[] } {
  const next = clone(config);
  const assigned: NamedUuid[] = [];
  for (const { layer } of walkLayers(next.layers)) {
    if (missingUuid(layer.uuid)) {
      layer.uuid = newUuid();
      assigned.push({ name: layer.name, uuid: layer.uuid });
    } else if (typeof layer.uuid !== 'string' || !UUID.test(layer.uuid)) {
      const bad = layer.uuid;
      layer.uuid = newUuid();
      assigned.push({ name: layer.name, uuid: layer.uuid, replacesBadUUID: bad });
    }
  }
  return { config: next, assigned };
}

export interface InitialView {
  latitude?: number;
  longitude?: number;
  zoom?: number;
}

/**
 * Replaces the given entries of `msv.view` (`[lat, lon, zoom]`); `changed` is false when every given
 * value equals the stored one (numerically: a stored "34.5" equals 34.5 and is kept as given).
 */
export function setInitialView(config: Config, view: InitialView): { config: Config; changed: boolean } {
  const next = clone(config);
  if (!isPlainObject(next.msv)) next.msv = {};
  const current: unknown[] = Array.isArray(next.msv.view) ? next.msv.view : [];
  const values = [view.latitude, view.longitude, view.zoom];
  const updated = [0, 1, 2].map((i) => current[i] ?? null);
  let changed = false;
  values.forEach((v, i) => {
    if (v === undefined) return;
    const old = current[i];
    if (old === undefined || old === null || old === '' || Number(old) !== v) {
      updated[i] = v;
      changed = true;
    }
  });
  next.msv.view = [...updated, ...current.slice(3)];
  return { config: changed ? next : clone(config), changed };
}
