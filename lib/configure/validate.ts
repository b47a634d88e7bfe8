import { UUID } from '#lib/formats.ts';
import { toNumber } from '#lib/numbers.ts';
import { isPlainObject, MAX_JSON_DEPTH, nestedDeeperThan } from './storedConfig.ts';

/**
 * Validation of a mission configuration (docs/configure.md). Never mutates the config and never fills in
 * defaults. Errors make a config invalid; warnings never do. Unknown keys are allowed everywhere (real
 * configs carry many).
 */
export interface Issue {
  type: 'error' | 'warning';
  reason: string;
  invalidFields: string[];
}

export interface ValidationResult {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
}

export const LAYER_TYPES = ['header', 'tile', 'vectortile', 'data', 'query', 'vector', 'model'] as const;
const URL_TYPES = new Set(['tile', 'vectortile', 'vector', 'model']);
const ZOOM_KEYS = ['minZoom', 'maxNativeZoom', 'maxZoom'] as const;
/** Deeper trees are refused: no real map nests headers this far, and it bounds the recursion. */
export const MAX_DEPTH = 32;
export const GEODATASET_PREFIX = 'geodatasets:';

const nonEmptyString = (x: unknown): x is string => typeof x === 'string' && x.trim() !== '';

const absent = (x: unknown) => x === undefined || x === null || x === '';

/** The geodataset names that layers reference with a `geodatasets:<name>` url, once each. */
export function geodatasetNames(config: unknown): string[] {
  const names = new Set<string>();
  if (!isPlainObject(config)) return [];
  const visit = (layers: unknown, depth: number) => {
    if (!Array.isArray(layers) || depth > MAX_DEPTH) return;
    for (const layer of layers) {
      if (!isPlainObject(layer)) continue;
      if (typeof layer.url === 'string' && layer.url.startsWith(GEODATASET_PREFIX)) {
        names.add(layer.url.slice(GEODATASET_PREFIX.length));
      }
      visit(layer.sublayers, depth + 1);
    }
  };
  visit(config.layers, 0);
  return [...names];
}

/**
 * Validates `config`. `datasets`, when given, is the set of existing geodataset names: a layer url
 * `geodatasets:<name>` naming none of them is a warning.
 */
export function validateConfig(config: unknown, datasets?: Set<string>): ValidationResult {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const error = (reason: string, ...invalidFields: string[]) =>
    errors.push({ type: 'error', reason, invalidFields });
  const warn = (reason: string, ...invalidFields: string[]) =>
    warnings.push({ type: 'warning', reason, invalidFields });

  if (!isPlainObject(config)) {
    error('The configuration must be a JSON object.', 'config');
    return { valid: false, errors, warnings };
  }

  if (nestedDeeperThan(config)) {
    error(`The configuration is nested deeper than ${MAX_JSON_DEPTH} levels.`, 'config');
    return { valid: false, errors, warnings };
  }

  validateMsv(config.msv, error, warn);

  if (!Array.isArray(config.tools)) {
    error(config.tools === undefined ? "'tools' is missing." : "'tools' must be an array.", 'tools');
  } else {
    config.tools.forEach((tool: unknown, i: number) => {
      if (!isPlainObject(tool)) error(`tools[${i}] must be an object.`, `tools[${i}]`);
      else if (!nonEmptyString(tool.name)) warn(`tools[${i}] has no name.`, `tools[${i}].name`);
    });
  }

  if (!Array.isArray(config.layers)) {
    error(config.layers === undefined ? "'layers' is missing." : "'layers' must be an array.", 'layers');
    return { valid: errors.length === 0, errors, warnings };
  }

  const uuids = new Map<string, string>();
  const names = new Map<string, string>();
  const visit = (layers: unknown[], prefix: string, depth: number) => {
    if (depth > MAX_DEPTH) {
      error(`Headers are nested deeper than ${MAX_DEPTH} levels.`, prefix);
      return;
    }
    layers.forEach((layer, i) => {
      const at = `${prefix}[${i}]`;
      if (!isPlainObject(layer)) {
        error(`${at} must be an object.`, at);
        return;
      }
      const label = nonEmptyString(layer.name) ? `Layer '${layer.name}' (${at})` : `Layer ${at}`;
      validateLayer(layer, at, label, error, warn, datasets);
      // A missing, null or empty uuid is not an error: a save assigns one. Nor is one that is not a UUID
      // string (the configure app's numeric placeholder for a new layer): a save replaces it.
      if (!absent(layer.uuid)) {
        if (typeof layer.uuid !== 'string' || !UUID.test(layer.uuid)) {
          warn(`${label}: 'uuid' is not a UUID string; saving replaces it with a new one.`, `${at}.uuid`);
        } else {
          const key = layer.uuid.toLowerCase();
          const first = uuids.get(key);
          if (first) error(`${label}: uuid '${layer.uuid}' is also used by ${first}.`, `${at}.uuid`);
          else uuids.set(key, at);
        }
      }
      if (nonEmptyString(layer.name)) {
        const first = names.get(layer.name);
        if (first) warn(`${label}: the name is also used by ${first}.`, `${at}.name`);
        else names.set(layer.name, at);
      }
      if (Array.isArray(layer.sublayers)) visit(layer.sublayers, `${at}.sublayers`, depth + 1);
    });
  };
  visit(config.layers, 'layers', 0);
  return { valid: errors.length === 0, errors, warnings };
}

type Report = (reason: string, ...fields: string[]) => void;

function validateMsv(msv: unknown, error: Report, warn: Report) {
  if (!isPlainObject(msv)) {
    error(msv === undefined ? "'msv' is missing." : "'msv' must be an object.", 'msv');
    return;
  }
  if (msv.view === undefined) {
    warn("'msv.view' is missing: the map has no initial view.", 'msv.view');
    return;
  }
  if (!Array.isArray(msv.view) || msv.view.length < 3) {
    error("'msv.view' must be [latitude, longitude, zoom].", 'msv.view');
    return;
  }
  const [lat, lon, zoom] = msv.view.map((v) => toNumber(v));
  if (!(lat >= -90 && lat <= 90))
    error("'msv.view[0]' (latitude) must be a number in [-90, 90].", 'msv.view[0]');
  if (!(lon >= -360 && lon <= 360))
    error("'msv.view[1]' (longitude) must be a number in [-360, 360].", 'msv.view[1]');
  if (!(zoom >= 0)) error("'msv.view[2]' (zoom) must be a number ≥ 0.", 'msv.view[2]');
}

function validateLayer(
  layer: Record<string, any>,
  at: string,
  label: string,
  error: Report,
  warn: Report,
  datasets?: Set<string>,
) {
  if (!nonEmptyString(layer.name)) error(`${label}: 'name' must be a non-empty string.`, `${at}.name`);
  const type = layer.type;
  if (!(LAYER_TYPES as readonly unknown[]).includes(type)) {
    error(`${label}: 'type' must be one of ${LAYER_TYPES.join(', ')}.`, `${at}.type`);
  }
  if (URL_TYPES.has(type) && !nonEmptyString(layer.url)) {
    error(`${label}: a ${type} layer needs a 'url'.`, `${at}.url`);
  }
  if (type === 'data' && !nonEmptyString(layer.demtileurl)) {
    error(`${label}: a data layer needs a 'demtileurl'.`, `${at}.demtileurl`);
  }
  if (type === 'query' && !(isPlainObject(layer.query) && nonEmptyString(layer.query.endpoint))) {
    error(`${label}: a query layer needs 'query.endpoint'.`, `${at}.query.endpoint`);
  }
  const zooms: Partial<Record<(typeof ZOOM_KEYS)[number], number>> = {};
  for (const key of ZOOM_KEYS) {
    if (absent(layer[key])) continue;
    const z = toNumber(layer[key]);
    if (!(z >= 0)) error(`${label}: '${key}' must be a number ≥ 0.`, `${at}.${key}`);
    else zooms[key] = z;
  }
  if (
    zooms.minZoom !== undefined &&
    zooms.maxNativeZoom !== undefined &&
    zooms.minZoom > zooms.maxNativeZoom
  ) {
    error(`${label}: 'minZoom' must not exceed 'maxNativeZoom'.`, `${at}.minZoom`, `${at}.maxNativeZoom`);
  }
  if (type === 'header') {
    if (layer.sublayers !== undefined && !Array.isArray(layer.sublayers)) {
      error(`${label}: 'sublayers' must be an array.`, `${at}.sublayers`);
    }
    if (typeof layer.name === 'string' && layer.name.includes('.')) {
      warn(
        `${label}: a header name with '.' can only be addressed by index in placement paths.`,
        `${at}.name`,
      );
    }
  } else if (layer.sublayers !== undefined) {
    if (Array.isArray(layer.sublayers) && layer.sublayers.length === 0) {
      warn(`${label}: only headers have 'sublayers' (this one is empty).`, `${at}.sublayers`);
    } else {
      error(`${label}: only headers may have 'sublayers'.`, `${at}.sublayers`);
    }
  }
  if (datasets && typeof layer.url === 'string' && layer.url.startsWith(GEODATASET_PREFIX)) {
    const name = layer.url.slice(GEODATASET_PREFIX.length);
    if (!datasets.has(name)) warn(`${label}: no geodataset named '${name}' exists.`, `${at}.url`);
  }
}
