/** Types of local/patches/checks.mjs for TypeScript callers. */
/** The patch-package patches: package, patched file, and a line only the patch adds. */
export const PATCHED_FILES: [string, string, string][];
/** Every patch of the local runtime, by the name its PatchDriftError and local/README.md give it. */
export const PATCHES: { name: string; check(root: string): unknown }[];
/** Runs every check against the install under `root`; the failures (empty: every patch fits). */
export function checkPatches(root: string): Promise<{ name: string; message: string }[]>;
