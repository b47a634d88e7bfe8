import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envText } from '#lib/settings.ts';

let checked: { setting: string | undefined; dir: string | undefined } | undefined;

/**
 * The MMGIS 3.0.0 front end the operator handed over (`MMGIS_CLIENT_DIR`, docs/mission-site.md): the folder
 * of its build, holding `build/index.pug` and `configure/build/index.pug`. Undefined when unset or when the
 * folder holds no build: then our own viewer and console answer at `/` and `/configure`.
 */
export function mmgisClientDir(): string | undefined {
  const setting = envText('MMGIS_CLIENT_DIR');
  if (checked !== undefined && checked.setting === setting) return checked.dir;
  const dir = setting === undefined ? undefined : resolve(setting);
  const ok =
    dir !== undefined &&
    existsSync(join(dir, 'build', 'index.pug')) &&
    existsSync(join(dir, 'configure', 'build', 'index.pug'));
  checked = { setting, dir: ok ? dir : undefined };
  return checked.dir;
}
