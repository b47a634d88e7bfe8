import type { Queryable } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { BATCH_ROWS } from '#lib/geodatasets/read/featureStream.ts';
import { type ReadFilters, withReadErrors } from '#lib/geodatasets/read/filters.ts';
import { existsBeyond, type ItemsPage, itemsQuery, numberMatched } from './items.ts';
import { GEOJSON, HTML, JSON_TYPE, type Link, withQuery } from './request.ts';

export interface ItemsContext {
  /** `…/collections/{name}` */
  collectionUrl: string;
  /** The request's query parameters other than `f`, `after`, `before`, repeated in the links. */
  keep: Record<string, string>;
}

/**
 * The items answer (a GeoJSON FeatureCollection with `numberMatched`, `numberReturned`, `timeStamp` and
 * `self`/`alternate`/`next`/`prev`/`collection` links) as text pieces: the features are read with a
 * cursor a batch at a time and passed through as the database wrote them; the members after the
 * features follow once the page's first and last ids are known.
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
  const batches = itemsQuery(sql, ds, f, page).cursor(BATCH_ROWS)[Symbol.asyncIterator]();
  let returned = 0;
  let firstId: number | undefined;
  let lastId: number | undefined;
  let more = false;
  let done = false;
  try {
    yield '{"type":"FeatureCollection","features":[';
    for (;;) {
      const next = await withReadErrors(() => batches.next());
      if (next.done) break;
      const texts: string[] = [];
      for (const row of next.value) {
        if (returned === page.limit) {
          more = true;
          break;
        }
        texts.push(row.f as string);
        const id = Number(row.id);
        firstId ??= id;
        lastId = id;
        returned++;
      }
      if (texts.length) yield (returned > texts.length ? ',' : '') + texts.join(',');
    }
    done = true;
  } finally {
    if (!done) await batches.return?.();
  }
  if (page.before !== undefined)
    more = lastId !== undefined && (await existsBeyond(sql, ds, f, lastId, 'above'));
  const cursor = page.after !== undefined || page.before !== undefined;
  const earlier = cursor && firstId !== undefined && (await existsBeyond(sql, ds, f, firstId, 'below'));
  const items = `${ctx.collectionUrl}/items`;
  const current = { ...ctx.keep, after: page.after, before: page.before };
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
      href: withQuery(items, { ...ctx.keep, after: lastId }),
      rel: 'next',
      type: GEOJSON,
      title: 'Next page',
    });
  }
  if (earlier && firstId !== undefined) {
    links.push({
      href: withQuery(items, { ...ctx.keep, before: firstId }),
      rel: 'prev',
      type: GEOJSON,
      title: 'Previous page',
    });
  }
  links.push({ href: ctx.collectionUrl, rel: 'collection', type: JSON_TYPE, title: 'The collection' });
  yield `],"numberMatched":${await matched},"numberReturned":${returned},"timeStamp":${JSON.stringify(timeStamp)},"links":${JSON.stringify(links)}}`;
}
