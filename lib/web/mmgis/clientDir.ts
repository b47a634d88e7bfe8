import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setting } from '#lib/settings.ts';

let checked: { setting: string | undefined; dir: string | undefined } | undefined;

/**
 * The MMGIS 3.0.0 front end the operator handed over (`MMGIS_CLIENT_DIR`, docs/mission-site.md): the folder
 * of its build, holding `build/index.pug` and `configure/build/index.pug`. Undefined when unset or when the
 * folder holds no build: then our own viewer and console answer at `/` and `/configure`.
 */
export function mmgisClientDir(): string | undefined {
  const given = setting('MMGIS_CLIENT_DIR');
  if (checked !== undefined && checked.setting === given) return checked.dir;
  const dir = given === undefined ? undefined : resolve(given);
  const ok =
    dir !== undefined &&
    existsSync(join(dir, 'build', 'index.pug')) &&
    existsSync(join(dir, 'configure', 'build', 'index.pug'));
  checked = { setting: given, dir: ok ? dir : undefined };
  return checked.dir;
}
