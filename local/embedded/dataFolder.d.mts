/** Types of local/embedded/dataFolder.mjs for TypeScript callers. */
/** Makes `dir` (an absolute path) ready for PGlite: created when missing, given a database when empty. */
export function prepareDataFolder(dir: string, signal?: AbortSignal): Promise<void>;
