import { HttpError } from '#lib/errors.ts';
import { processWide } from '#lib/processWide.ts';
import { setting } from '#lib/settings.ts';

/**
 * The costly-read lane (docs/cql2.md, "Cost"): reads whose filter costs more than `CQL2_COST.costlyUnits`
 * run at most `places` at a time per process, so that they never hold every connection of the pool (under
 * `npm start` one process serves every function) nor, on the embedded database, queue ahead of every other
 * statement (PGlite runs one statement at a time, on the service's own event loop). The others wait here,
 * holding no connection, up to `WAIT_MS`, then get 503. On Lambda a process serves one
 * request at a time, so the lane never makes one wait there.
 */
interface Lane {
  busy: number;
  waiting: Array<() => void>;
}

const lane = processWide(
  Symbol.for('mmgis-serverless.cql2.costlyLane'),
  (): Lane => ({ busy: 0, waiting: [] }),
);

/** How long a costly read waits for a place before it is answered 503. */
export const WAIT_MS = 15_000;

/** Places: 1 on the embedded database, else a quarter of the pool (`DB_POOL_MAX`), at least 1. */
export function lanePlaces(): number {
  if (setting('DATABASE_URL')?.includes('embedded=pglite')) return 1;
  return Math.max(1, Math.floor(setting('DB_POOL_MAX') / 4));
}

function busyError(): HttpError {
  return new HttpError(
    503,
    `The service is busy with other costly filters; try again in a few seconds, or make 'filter' cheaper (docs/cql2.md, "Cost").`,
  );
}

/** Runs `fn` in the lane: at once when a place is free, else after the reads ahead of it (503 after WAIT_MS). */
export async function inCostlyLane<T>(fn: () => Promise<T>): Promise<T> {
  if (lane.busy >= lanePlaces()) {
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = lane.waiting.indexOf(go);
        if (i >= 0) lane.waiting.splice(i, 1);
        reject(busyError());
      }, WAIT_MS);
      lane.waiting.push(go);
    });
  } else lane.busy++;
  try {
    return await fn();
  } finally {
    const next = lane.waiting.shift();
    if (next) next();
    else lane.busy--;
  }
}
