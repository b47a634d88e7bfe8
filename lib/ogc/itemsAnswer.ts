import type { Queryable } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import type { ReadFilters } from '#lib/geodatasets/read/filters.ts';
import { type ItemsChunk, type ItemsPage, numberMatched, readItemsChunks } from './items.ts';
import { GEOJSON, HTML, JSON_TYPE, type Link, withQuery } from './request.ts';

export interface ItemsContext {
  /** `…/collections/{name}` */
  collectionUrl: string;
  /** The request's query parameters other than `f`, `after`, `before`, repeated in the links. */
  keep: Record<string, string>;
}

/**
 * The items answer (a GeoJSON FeatureCollection with `numberMatched`, `numberReturned`, `timeStamp` and
 * `self`/`alternate`/`next`/`prev`/`collection` links) as text pieces: the page is one statement
 * (`itemsQuery`) whose rows each carry the joined texts of up to 1,000 features as the database wrote
 * them, passed through as they come (never re-joined here); the members after the features follow from
 * the same rows' first and last ids and flags, and the count, read beside them.
 */
export async function* itemsText(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  page: ItemsPage,
  ctx: ItemsContext,
): AsyncGenerator<string> {
  const timeStamp = new Date().toISOString();
  const matched = numberMatched(sql, ds, f);
  // Settled at once so a failure before it is awaited is not an unhandled rejection.
  matched.catch(() => undefined);
  let returned = 0;
  let firstId: number | undefined;
  let last: ItemsChunk | undefined;
  yield '{"type":"FeatureCollection","features":[';
  for await (const chunk of readItemsChunks(sql, ds, f, page)) {
    if (chunk.f !== null) {
      if (returned > 0) yield ',';
      yield chunk.f;
    }
    returned += chunk.n;
    if (chunk.first !== null) firstId ??= Number(chunk.first);
    last = chunk;
  }
  if (!last) throw new Error('items: the page statement returned no row');
  const lastId = last.last === null ? undefined : Number(last.last);
  const more = last.more;
  const earlier = last.earlier;
  const items = `${ctx.collectionUrl}/items`;
  const current = { ...ctx.keep, after: page.after, before: page.before };
  // The next and prev pages are of the limit this page used (a limit above the maximum was lowered).
  const onward = ctx.keep.limit === undefined ? ctx.keep : { ...ctx.keep, limit: String(page.limit) };
  const links: Link[] = [
    { href: withQuery(items, { ...current, f: 'json' }), rel: 'self', type: GEOJSON, title: 'This page' },
    {
      href: withQuery(items, { ...current, f: 'html' }),
      rel: 'alternate',
      type: HTML,
      title: 'This page as HTML',
    },
  ];
  if (more && lastId !== undefined) {
    links.push({
      href: withQuery(items, { ...onward, after: lastId }),
      rel: 'next',
      type: GEOJSON,
      title: 'Next page',
    });
  }
  if (earlier && firstId !== undefined) {
    links.push({
      href: withQuery(items, { ...onward, before: firstId }),
      rel: 'prev',
      type: GEOJSON,
      title: 'Previous page',
    });
  }
  links.push({ href: ctx.collectionUrl, rel: 'collection', type: JSON_TYPE, title: 'The collection' });
  yield `],"numberMatched":${await matched},"numberReturned":${returned},"timeStamp":${JSON.stringify(timeStamp)},"links":${JSON.stringify(links)}}`;
}
