import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setting } from '#lib/settings.ts';
import { bucketBuild } from './bucketBuild.ts';
import type { MmgisBuild } from './build.ts';
import { folderBuild } from './folderBuild.ts';

let checked: { setting: string | undefined; dir: string | undefined } | undefined;

/**
 * The MMGIS 3.0.0 front end the operator handed over (`MMGIS_CLIENT_DIR`, docs/mission-site.md): the folder
 * of its build, holding `build/index.pug` and `configure/build/index.pug`. Undefined when unset or when the
 * folder holds no build.
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

/**
 * The MMGIS build this instance serves, or undefined (our own viewer and console answer at `/` and
 * `/configure` then): the folder `MMGIS_CLIENT_DIR` when it holds a build, else the page templates in the
 * bucket `MMGIS_CLIENT_BUCKET` (deployed: the front door's site bucket; docs/mission-site.md, "Deployed").
 */
export async function mmgisBuild(): Promise<MmgisBuild | undefined> {
  const dir = mmgisClientDir();
  if (dir) return folderBuild(dir);
  const bucket = setting('MMGIS_CLIENT_BUCKET');
  return bucket ? bucketBuild(bucket) : undefined;
}
