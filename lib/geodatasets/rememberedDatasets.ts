import type { Geodataset } from '#lib/geodatasets/catalog.ts';

/** Catalog rows remembered per database, at most this many names each (the oldest forgotten first). */
const MAX_NAMES = 256;
const byDb = new WeakMap<object, Map<string, Geodataset>>();

/**
 * The catalog row last read for `name` on `db`: a guess, never an answer. A reader that starts from it must
 * read the row's `version` again in its own statement and start over when it differs
 * (`namedTileResponse`, lib/http/tileResponse.ts), so no write is ever missed: the guess saves a tile
 * request its first statement.
 */
export function rememberedDataset(db: object, name: string): Geodataset | undefined {
  return byDb.get(db)?.get(name);
}

export function rememberDataset(db: object, ds: Geodataset): void {
  const names = byDb.get(db) ?? new Map<string, Geodataset>();
  byDb.set(db, names);
  names.delete(ds.name);
  names.set(ds.name, ds);
  if (names.size > MAX_NAMES) names.delete(names.keys().next().value as string);
}

export function forgetDataset(db: object, name: string): void {
  byDb.get(db)?.delete(name);
}
