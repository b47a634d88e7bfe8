// Types of local/embedded/postgisBundle.mjs for TypeScript callers.
import type { Extension } from '@electric-sql/pglite';

/** pglite-postgis's own bundle. */
export function originalBundle(): string;
/** Files of the bundle the service does without: the other extensions, upgrade and legacy scripts. */
export function unneeded(name: string): boolean;
/** The entries of tar archive `tar` for which `keep(name)` holds, as a tar archive. */
export function filterTar(tar: Buffer, keep: (name: string) => boolean): Buffer;
/** Where the trimmed bundle of `original` (default: pglite-postgis's own) is kept, made when missing. */
export function trimmedBundle(original?: string): string;
/** pglite-postgis's extension, loading the trimmed bundle (the package's own if it cannot be made). */
export function trimmedPostgis(): Extension;
