import { adminToken, call } from '../helpers.ts';

/**
 * MMGIS's CI makes `Reference-Mission` before its specs run (several of them read it); the ports make it
 * here, once per database, through `configure/add` with the suite's administrator token. A second call
 * (another spec file first) answers 409, which is as good.
 */
export async function ensureReferenceMission(): Promise<void> {
  const add = await call('POST', '/api/configure/add', {
    body: { mission: 'Reference-Mission' },
    token: adminToken(),
  });
  if (add.status !== 201 && add.status !== 409)
    throw new Error(`configure/add Reference-Mission: ${add.status} ${add.text}`);
}
