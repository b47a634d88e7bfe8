import { getDb } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';

/** Applies pending migrations; invoked once after each deploy (`serverless invoke -f migrate`). */
export const handler = async () => {
  const applied = await migrate(getDb().sql);
  return { status: 'success', applied };
};
