import { AsyncLocalStorage } from 'node:async_hooks';
import { processWide } from '#lib/processWide.ts';

/**
 * Whether any statement of a request may have reached the database (docs/connections.md): a handler is
 * run again after a connection failure only when none did. Both drivers report here, under the request's
 * async context, so concurrent requests in one process keep separate logs.
 */

/** A postgres.js query: `state` stays null until the query is written to a connection. */
interface PgQuery extends Promise<unknown> {
  state: unknown;
  handler: unknown;
}

export class StatementLog {
  private sent = 0;
  private unsettled = new Set<PgQuery>();

  /** Runs `fn` with this log as the current request's. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return current.run(this, fn);
  }

  /** A statement of this request was sent, or is being sent: its outcome is not known to be "never ran". */
  anySent(): boolean {
    if (this.sent > 0) return true;
    for (const q of this.unsettled) if (q.state !== null) return true;
    return false;
  }

  /** The Data API driver, before a call that runs a statement; `notRun()` when the answer proves it did not. */
  sending(): { notRun(): void } {
    this.sent++;
    let counted = true;
    return {
      notRun: () => {
        if (counted) this.sent--;
        counted = false;
      },
    };
  }

  follow(q: PgQuery): void {
    this.unsettled.add(q);
    // The native `then`, not the query's own: that one would execute a fragment that is never awaited.
    const settled = () => {
      this.unsettled.delete(q);
      if (q.state !== null) this.sent++;
    };
    Promise.prototype.then.call(q, settled, settled);
  }
}

/**
 * One per process, shared by every bundle's copy of this module (lib/processWide.ts): under `npm start` a
 * pool made by one function's bundle serves the others' requests, and its `followQueries` must find the
 * log of whichever request is running.
 */
const current = processWide(
  Symbol.for('mmgis-serverless.db.statementLog'),
  () => new AsyncLocalStorage<StatementLog>(),
);

/** For the Data API driver: see `StatementLog.sending` (a no-op outside a request). */
export function statementSending(): { notRun(): void } {
  return current.getStore()?.sending() ?? { notRun() {} };
}

const isQuery = (x: unknown): x is PgQuery =>
  x instanceof Promise && 'state' in x && 'handler' in x && typeof (x as PgQuery).handler === 'function';

/**
 * A postgres.js `sql` whose queries are followed by the current request's log: queries made with it, with
 * its `unsafe`/`file`, and with the `sql` of its transactions and savepoints. Everything else passes through.
 */
export function followQueries<S extends object>(sql: S): S {
  const note = (x: unknown) => {
    if (isQuery(x)) current.getStore()?.follow(x);
    return x;
  };
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      apply: (fn, self, args) => note(Reflect.apply(fn as (...a: unknown[]) => unknown, self, args)),
      get(obj, key) {
        const value = Reflect.get(obj, key);
        if (typeof value !== 'function') return value;
        const fn = value as (...a: unknown[]) => unknown;
        if (key === 'begin' || key === 'savepoint')
          return (...args: unknown[]) => {
            const last = args.length - 1;
            const body = args[last];
            if (typeof body === 'function') args[last] = (tx: object) => body(wrap(tx));
            return fn.apply(obj, args);
          };
        if (key === 'reserve')
          return async (...args: unknown[]) => wrap((await fn.apply(obj, args)) as object);
        return (...args: unknown[]) => note(fn.apply(obj, args));
      },
    });
  return wrap(sql);
}
