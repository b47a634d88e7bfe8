/** Which database driver the service uses (`DB_DRIVER`: `postgres`, the default, or `data-api`). */
export type DbDriverName = 'postgres' | 'data-api';

export function dbDriverName(): DbDriverName {
  return process.env.DB_DRIVER === 'data-api' ? 'data-api' : 'postgres';
}
