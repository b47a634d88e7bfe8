import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pug from 'pug';
import type { MmgisBuild } from './build.ts';

const builds = new Map<string, MmgisBuild>();

/**
 * The build in the folder `dir` (`MMGIS_CLIENT_DIR`): each page compiled from its file once per function
 * instance, `views/` the base folder of its includes as for MMGIS's server; the version from its
 * package.json.
 */
export function folderBuild(dir: string): MmgisBuild {
  let build = builds.get(dir);
  if (build) return build;
  const compiled = new Map<string, pug.compileTemplate>();
  build = {
    dir,
    version: folderVersion(dir),
    render(page, variables) {
      let fn = compiled.get(page);
      if (!fn) {
        fn = pug.compileFile(join(dir, page), { basedir: join(dir, 'views') });
        compiled.set(page, fn);
      }
      return fn(variables);
    },
  };
  builds.set(dir, build);
  return build;
}

function folderVersion(dir: string): string {
  try {
    return String(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version ?? '');
  } catch {
    return '';
  }
}
