/** Patches PGlite's bundles in `dist` (scripts/patchPgliteDlsym.mjs); the files patched now and those already patched. */
export function patchDist(dist: string): { patched: string[]; already: string[] };
