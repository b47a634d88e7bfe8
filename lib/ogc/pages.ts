import { type CollectionSource, collectionJson, queryables } from './collections.ts';
import { CONFORMANCE_CLASSES } from './conformance.ts';
import { escapeHtml, linkList, page, table, valueText } from './html.ts';
import type { Link } from './request.ts';

/** The HTML page of each OGC API resource (docs/ogc.md, "HTML"); the JSON documents are built beside. */

/** Most features an HTML items page lists (a larger `limit` is lowered for HTML). */
export const HTML_MAX_FEATURES = 1000;

const home = (base: string) => ({ href: base, text: 'OGC API' });

export function landingHtml(links: Link[]): string {
  return page(
    'MMGIS geodatasets – OGC API – Features',
    [{ text: 'OGC API' }],
    `<p>The geodatasets of this service as OGC API – Features collections.</p>${linkList(links, 'Links')}`,
  );
}

export function conformanceHtml(base: string): string {
  const items = CONFORMANCE_CLASSES.map(
    (c) => `<li><a href="${escapeHtml(c)}">${escapeHtml(c)}</a></li>`,
  ).join('');
  return page('Conformance', [home(base), { text: 'Conformance' }], `<ul>${items}</ul>`);
}

export function collectionsHtml(base: string, sources: CollectionSource[]): string {
  const rows = sources.map((s) => {
    const c = collectionJson(base, s) as { extent: { spatial: { bbox: number[][] } } };
    const url = `${base}/collections/${encodeURIComponent(s.ds.name)}`;
    return [
      `<a href="${escapeHtml(`${url}?f=html`)}">${escapeHtml(s.ds.name)}</a>`,
      escapeHtml(s.ds.numFeatures),
      escapeHtml(c.extent.spatial.bbox[0].join(', ')),
      `<a href="${escapeHtml(`${url}/items?f=html`)}">Features of ${escapeHtml(s.ds.name)}</a>`,
    ];
  });
  const body = rows.length
    ? table('Collections', ['Collection', 'Features', 'Bounding box (CRS84)', 'Items'], rows)
    : '<p>No collections.</p>';
  return page('Collections', [home(base), { text: 'Collections' }], body);
}

export function collectionHtml(base: string, src: CollectionSource): string {
  const c = collectionJson(base, src) as {
    description: string;
    extent: { spatial: { bbox: number[][] }; temporal?: { interval: (string | null)[][] } };
    crs: string[];
    links: Link[];
  };
  const q = [...queryables(src.extents)].map(([name, type]) => [escapeHtml(name), escapeHtml(type)]);
  const time = c.extent.temporal?.interval[0];
  const body = `<p>${escapeHtml(c.description)}</p>
<dl>
<dt>Bounding box (CRS84)</dt><dd>${escapeHtml(c.extent.spatial.bbox[0].join(', '))}</dd>
<dt>Time</dt><dd>${time ? `${escapeHtml(time[0] ?? '..')} to ${escapeHtml(time[1] ?? '..')}` : 'none'}</dd>
<dt>Coordinate reference systems</dt><dd><ul>${c.crs.map((u) => `<li>${escapeHtml(u)}</li>`).join('')}</ul></dd>
</dl>
${q.length ? table('Queryables (filter the items with name=value)', ['Property', 'Type'], q) : '<p>No queryable properties.</p>'}
${linkList(c.links, 'Links')}`;
  return page(
    src.ds.name,
    [home(base), { href: `${base}/collections?f=html`, text: 'Collections' }, { text: src.ds.name }],
    body,
  );
}

interface FeatureLike {
  id?: unknown;
  geometry?: { type?: string } | null;
  properties?: Record<string, unknown> | null;
}

export function itemsHtml(
  base: string,
  name: string,
  fc: { features: FeatureLike[]; numberMatched?: number; numberReturned?: number; links: Link[] },
): string {
  const url = `${base}/collections/${encodeURIComponent(name)}`;
  const keys = [...new Set(fc.features.flatMap((f) => Object.keys(f.properties ?? {})))].slice(0, 30);
  const rows = fc.features.map((f) => [
    `<a href="${escapeHtml(`${url}/items/${encodeURIComponent(String(f.id))}?f=html`)}">Feature ${escapeHtml(f.id)}</a>`,
    escapeHtml(f.geometry?.type ?? ''),
    ...keys.map((k) => valueText(f.properties?.[k])),
  ]);
  const nav = fc.links
    .filter((l) => l.rel === 'next' || l.rel === 'prev')
    .map((l) => {
      const href = l.href.replace(/([?&])f=json(&|$)/, '$1').replace(/[?&]$/, '');
      const sep = href.includes('?') ? '&' : '?';
      return `<li><a href="${escapeHtml(`${href}${sep}f=html`)}" rel="${l.rel}">${l.rel === 'next' ? 'Next page' : 'Previous page'}</a></li>`;
    })
    .join('');
  const body = `<p>${escapeHtml(fc.numberReturned)} of ${escapeHtml(fc.numberMatched)} matching features.</p>
${rows.length ? table(`Features of ${name}`, ['Feature', 'Geometry', ...keys], rows) : '<p>No features.</p>'}
${nav ? `<nav aria-label="Pages"><ul>${nav}</ul></nav>` : ''}`;
  return page(
    `Features of ${name}`,
    [
      home(base),
      { href: `${base}/collections?f=html`, text: 'Collections' },
      { href: `${url}?f=html`, text: name },
      { text: 'Items' },
    ],
    body,
  );
}

export function itemHtml(base: string, name: string, feature: FeatureLike): string {
  const url = `${base}/collections/${encodeURIComponent(name)}`;
  const rows = Object.entries(feature.properties ?? {}).map(([k, v]) => [escapeHtml(k), valueText(v)]);
  const body = `${rows.length ? table('Properties', ['Property', 'Value'], rows) : '<p>No properties.</p>'}
<h2>Geometry</h2><pre>${escapeHtml(JSON.stringify(feature.geometry))}</pre>`;
  return page(
    `Feature ${String(feature.id)} of ${name}`,
    [
      home(base),
      { href: `${base}/collections?f=html`, text: 'Collections' },
      { href: `${url}?f=html`, text: name },
      { href: `${url}/items?f=html`, text: 'Items' },
      { text: `Feature ${String(feature.id)}` },
    ],
    body,
  );
}

/** The API definition as a page: each path and its operation's summary and parameters. */
export function apiHtml(
  base: string,
  doc: {
    paths: Record<string, Record<string, { summary?: string; parameters?: { name: string; in: string }[] }>>;
  },
): string {
  const rows = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [
      escapeHtml(`${method.toUpperCase()} ${path}`),
      escapeHtml(op.summary ?? ''),
      escapeHtml((op.parameters ?? []).map((p) => `${p.name} (${p.in})`).join(', ')),
    ]),
  );
  const body = `<p>The OpenAPI 3.0 definition: <a href="${escapeHtml(`${base}/api?f=json`)}">as JSON</a>.</p>
${table('Operations', ['Operation', 'Summary', 'Parameters'], rows)}`;
  return page('API definition', [home(base), { text: 'API' }], body);
}
