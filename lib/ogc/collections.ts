import type { Queryable } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';
import { assertDatasetName, type Geodataset, toGeodataset } from '#lib/geodatasets/catalog.ts';
import { type Extents, extentsOf } from '#lib/geodatasets/extents.ts';
import { STORAGE_CRS, SUPPORTED_CRS } from './crs.ts';
import { GEOJSON, HTML, JSON_TYPE, type Link } from './request.ts';
import { collectionTilesLinks } from './tiles/links.ts';

/** A geodataset with the extents its catalog row keeps (lib/geodatasets/extents.ts). */
export interface CollectionSource {
  ds: Geodataset;
  extents: Extents;
}

export type QueryableType = 'number' | 'string' | 'boolean';

/**
 * The items' own query parameters (docs/ogc.md, "Items"), which are not property filters; a property of
 * the same name is not a queryable (the items' parameters win).
 */
export const ITEMS_PARAMETERS: ReadonlySet<string> = new Set([
  'f',
  'limit',
  'bbox',
  'bbox-crs',
  'crs',
  'datetime',
  'after',
  'before',
  'offset',
  'filter',
  'filter-lang',
  'filter-crs',
  '_',
]);
const QUERYABLE_NAME = /^[\p{L}\p{N}_\-:@#/ ]{1,128}$/u;

/** Every geodataset (the callers' read rule is the endpoint's `auth`, as for /api/geodatasets/get). */
export async function listCollections(sql: Queryable): Promise<CollectionSource[]> {
  const rows = await sql`select * from geodatasets order by name collate "C"`;
  return rows.map((r) => ({ ds: toGeodataset(r), extents: extentsOf(r) }));
}

/** The collection named `name`, or 404. */
export async function requireCollection(sql: Queryable, name: string): Promise<CollectionSource> {
  const [row] = await sql`select * from geodatasets where name = ${assertDatasetName(name, 'collectionId')}`;
  if (!row) throw notFound(`Collection '${name}' not found.`);
  return { ds: toGeodataset(row), extents: extentsOf(row) };
}

/**
 * The queryables of a collection: its top-level properties as the catalog counts them on write, each with
 * the JSON type most of its values hold (number, string or boolean; objects and arrays are not
 * queryable by `name=value`), in name order.
 */
export function queryables(extents: Extents): Map<string, QueryableType> {
  const out = new Map<string, QueryableType>();
  const names = Object.keys(extents.propertyTypes ?? {}).sort();
  for (const name of names) {
    if (ITEMS_PARAMETERS.has(name) || !QUERYABLE_NAME.test(name) || name.includes('.')) continue;
    const counts = extents.propertyTypes![name];
    const best = (['number', 'string', 'boolean'] as const).reduce<QueryableType | undefined>(
      (b, t) => ((counts[t] ?? 0) > (b ? (counts[b] ?? 0) : 0) ? t : b),
      undefined,
    );
    if (best) out.set(name, best);
  }
  return out;
}

/** The collection document (Part 1 `collection`, Part 2 `crs`/`storageCrs`). */
export function collectionJson(base: string, src: CollectionSource): Record<string, unknown> {
  const { ds, extents } = src;
  const url = `${base}/collections/${encodeURIComponent(ds.name)}`;
  const links: Link[] = [
    { href: url, rel: 'self', type: JSON_TYPE, title: 'This collection' },
    { href: `${url}?f=html`, rel: 'alternate', type: HTML, title: 'This collection as HTML' },
    { href: `${url}/items`, rel: 'items', type: GEOJSON, title: 'The features' },
    { href: `${url}/items?f=html`, rel: 'items', type: HTML, title: 'The features as HTML' },
    {
      href: `${url}/queryables`,
      rel: 'http://www.opengis.net/def/rel/ogc/1.0/queryables',
      type: 'application/schema+json',
      title: 'The names a CQL2 filter may use',
    },
    ...collectionTilesLinks(base, ds.name),
  ];
  const extent: Record<string, unknown> = {
    spatial: { bbox: [extents.bbox ?? [-180, -90, 180, 90]], crs: STORAGE_CRS.uri },
  };
  if (extents.timeMin || extents.timeMax) {
    extent.temporal = {
      interval: [[extents.timeMin, extents.timeMax]],
      trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian',
    };
  }
  return {
    id: ds.name,
    title: ds.name,
    description: `Geodataset '${ds.name}': ${ds.numFeatures} features${ds.filename ? ` from ${ds.filename}` : ''}.`,
    itemType: 'feature',
    extent,
    crs: SUPPORTED_CRS.map((c) => c.uri),
    storageCrs: STORAGE_CRS.uri,
    links,
  };
}
