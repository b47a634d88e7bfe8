import type { Link } from './request.ts';

/**
 * The HTML pages of the OGC API (conformance class html, docs/ogc.md "HTML"): plain server-rendered
 * documents, no script, one per resource, with a language, a title, landmarks, headings in order, tables
 * with captions and column headers, and links named by their text.
 */

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A whole page: `<nav>` of breadcrumbs, `<main>` with the given body. */
export function page(title: string, crumbs: { href?: string; text: string }[], body: string): string {
  const trail = crumbs
    .map((c) =>
      c.href
        ? `<li><a href="${escapeHtml(c.href)}">${escapeHtml(c.text)}</a></li>`
        : `<li aria-current="page">${escapeHtml(c.text)}</li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem;line-height:1.4;color:#111;background:#fff}
nav ol{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
nav li+li::before{content:"/";margin-right:.5rem;color:#555}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #888;padding:.25rem .5rem;text-align:left;vertical-align:top}
caption{text-align:left;font-weight:bold;padding:.25rem 0}a{color:#0645ad}a:focus{outline:3px solid #f90}
pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.5rem}
</style>
</head>
<body>
<header><nav aria-label="Breadcrumb"><ol>${trail}</ol></nav></header>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** A list of links, each named by its title (or relation) with its relation and media type. */
export function linkList(links: Link[], label: string): string {
  const items = links
    .map(
      (l) =>
        `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title ?? l.rel)}</a> <small>(${escapeHtml(l.rel)}${l.type ? `, ${escapeHtml(l.type)}` : ''})</small></li>`,
    )
    .join('');
  return `<section aria-label="${escapeHtml(label)}"><h2>${escapeHtml(label)}</h2><ul>${items}</ul></section>`;
}

/** A table with a caption, column headers (`scope="col"`) and the first cell of each row as its header. */
export function table(caption: string, headers: string[], rows: string[][]): string {
  const head = headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const body = rows
    .map(
      (r) =>
        `<tr>${r.map((cell, i) => (i === 0 ? `<th scope="row">${cell}</th>` : `<td>${cell}</td>`)).join('')}</tr>`,
    )
    .join('\n');
  return `<table><caption>${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** A property value as text (objects and arrays as JSON). */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return escapeHtml(typeof v === 'object' ? JSON.stringify(v) : String(v));
}
