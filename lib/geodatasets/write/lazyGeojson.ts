import { badRequest } from '#lib/errors.ts';
import {
  arrayElements,
  JsonScanError,
  objectMembers,
  parseSpan,
  type Span,
  skipWs,
  topLevelObject,
} from './jsonScan.ts';

/**
 * GeoJSON still as text: the members of its top-level object located but not parsed. Features are parsed
 * one at a time from their own slice while they are inserted (memory stays at the body plus one batch).
 */
export class LazyGeojson {
  constructor(
    readonly text: string,
    readonly members: Map<string, Span>,
    /** Where the object itself lies in `text`. */
    readonly span: Span = { start: 0, end: text.length },
  ) {}

  /** The object member `span` of `text` (e.g. the `geojson` member of a POST /recreate body). */
  static fromSpan(text: string, span: Span): LazyGeojson {
    try {
      const { members, end } = objectMembers(text, span.start);
      return new LazyGeojson(text, members, { start: span.start, end });
    } catch (e) {
      if (e instanceof JsonScanError) throw badRequest(`geojson is not a valid JSON object: ${e.message}.`);
      throw e;
    }
  }

  /** Reads a whole JSON text as GeoJSON (400 on malformed JSON). */
  static fromText(text: string): LazyGeojson {
    return new LazyGeojson(text, scanObject(text));
  }

  /** A top-level member, parsed (small members only: type, startProp, ...). */
  member(name: string): unknown {
    const span = this.members.get(name);
    if (!span) return undefined;
    try {
      return parseSpan(this.text, span);
    } catch (e) {
      throw badRequest(`The request body is not valid JSON: ${(e as Error).message}.`);
    }
  }
}

/** The top-level members of a JSON object text, or 400 naming the malformed place. */
export function scanObject(text: string): Map<string, Span> {
  if (skipWs(text, 0) === text.length) throw badRequest('A GeoJSON request body is required.');
  try {
    return topLevelObject(text);
  } catch (e) {
    if (e instanceof JsonScanError) {
      throw badRequest(`The request body is not valid JSON: ${e.message}.`);
    }
    throw e;
  }
}

function* lazyFeatures(g: LazyGeojson, span: Span): Generator<unknown> {
  let index = 0;
  try {
    for (const el of arrayElements(g.text, span)) {
      let f: unknown;
      try {
        f = JSON.parse(g.text.slice(el.start, el.end));
      } catch (e) {
        throw badRequest(`Feature ${index}: not valid JSON (${(e as Error).message}).`, {
          featureIndex: index,
        });
      }
      yield f;
      index++;
    }
  } catch (e) {
    if (e instanceof JsonScanError) {
      throw badRequest(`geojson.features is not valid JSON near feature ${index}: ${e.message}.`, {
        featureIndex: index,
      });
    }
    throw e;
  }
}

/**
 * The features of a FeatureCollection or of a single Feature, from a parsed object, a JSON text or a
 * `LazyGeojson`. The top-level shape is checked at once; each feature is validated as it is consumed.
 */
export function featureSource(geojson: unknown): Iterable<unknown> {
  if (typeof geojson === 'string') geojson = LazyGeojson.fromText(geojson);
  if (geojson instanceof LazyGeojson) {
    const type = geojson.member('type');
    if (type === 'Feature') return [parseSpan(geojson.text, geojson.span)];
    if (type === 'FeatureCollection') {
      const span = geojson.members.get('features');
      if (!span || geojson.text.charCodeAt(span.start) !== 0x5b) {
        throw badRequest('geojson.features must be an array of GeoJSON Features.');
      }
      return lazyFeatures(geojson, span);
    }
    throw badRequest(`geojson must be a FeatureCollection or a Feature (got type ${JSON.stringify(type)}).`);
  }
  if (typeof geojson !== 'object' || geojson === null || Array.isArray(geojson)) {
    throw badRequest('geojson must be a GeoJSON FeatureCollection or Feature object.');
  }
  const g = geojson as Record<string, unknown>;
  if (g.type === 'Feature') return [g];
  if (g.type === 'FeatureCollection') {
    if (!Array.isArray(g.features))
      throw badRequest('geojson.features must be an array of GeoJSON Features.');
    return g.features;
  }
  throw badRequest(`geojson must be a FeatureCollection or a Feature (got type ${JSON.stringify(g.type)}).`);
}
