/** The build's pug pages the service renders (docs/mission-site.md): MMGIS's map, configure app and logins. */
export const PAGE_TEMPLATES = [
  'build/index.pug',
  'configure/build/index.pug',
  'views/login.pug',
  'views/adminlogin.pug',
] as const;
export type PageTemplate = (typeof PAGE_TEMPLATES)[number];

/**
 * The keys a page function reads from the site bucket (`MMGIS_CLIENT_BUCKET`): the pages and the build's
 * package.json (its version). Its role may read these alone (serverless/plugins/frontDoorOrigins.cjs holds
 * the same list; tests/unit/package-mmgis-pages.test.ts compares them).
 */
export const BUCKET_KEYS = [...PAGE_TEMPLATES, 'package.json'] as const;

/** An MMGIS 3.0.0 front end the operator handed over: its pages, its version, and where its static files are. */
export interface MmgisBuild {
  /** Renders one of the build's pug pages with `variables`, as MMGIS's server does. */
  render(page: PageTemplate, variables: Record<string, unknown>): string;
  /** The build's `package.json` version ('' when unknown): MMGIS fills `VERSION` from it. */
  version: string;
  /** The folder of its static files; undefined when the front door serves them from the site bucket. */
  dir?: string;
}
