import { join } from 'node:path';
import pug from 'pug';

const compiled = new Map<string, pug.compileTemplate>();

/**
 * Renders one of the build's pug pages (`build/index.pug`, `configure/build/index.pug`,
 * `views/login.pug`, `views/adminlogin.pug`) with `variables`, as MMGIS's server does (`views/` is the
 * base folder of its includes). Each page is compiled once per function instance.
 */
export function renderPage(dir: string, page: string, variables: Record<string, unknown>): string {
  const file = join(dir, page);
  let fn = compiled.get(file);
  if (!fn) {
    fn = pug.compileFile(file, { basedir: join(dir, 'views') });
    compiled.set(file, fn);
  }
  return fn(variables);
}
