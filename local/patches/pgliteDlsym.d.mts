/** Types of local/patches/pgliteDlsym.mjs for TypeScript callers. */
/** PGlite's bundles in `dist`: those still holding the lookup, and those patched. */
export function lookupFiles(dist: string): { unpatched: string[]; patched: string[] };
/** Patches PGlite's bundles in `dist`; the files patched now and those already patched. */
export function patchDist(dist: string): { patched: string[]; already: string[] };
/** The folder of the installed PGlite's bundles. */
export function pgliteDist(): string;
/** Patches the installed PGlite; throws a PatchDriftError when no bundle holds the lookup. */
export function applyDlsymPatch(dist?: string): string[];
/** Throws a PatchDriftError unless the bundles hold the patched lookup and no unpatched one. */
export function checkDlsymPatch(dist?: string): string[];
