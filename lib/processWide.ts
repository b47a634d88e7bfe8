/**
 * A value shared by every copy of a module in one process, made by `make` on first use. On Lambda a
 * process runs one function's bundle, so this is the module's own value, kept here. Under `npm start`
 * serverless-offline runs every function's bundle in one process (docs/connections.md, "One process"), each
 * with its own copy of `lib`: an `AsyncLocalStorage` made per copy would not see a request context set by
 * another copy, and each one costs every promise of the process a copy of its store (Node propagates each
 * enabled storage to each new async resource), so the process would slow down with every function it has
 * loaded. There the local runtime puts one Map on `globalThis` before any bundle loads
 * (local/processWide.cjs), and every copy keeps its values in it.
 */
const LOCAL_RUNTIME_VALUES = Symbol.for('mmgis-serverless.local.processWide');

/** This copy's own values: those of a process that runs one bundle (Lambda, a test, a bench). */
const own = new Map<symbol, unknown>();

export function processWide<T>(key: symbol, make: () => T): T {
  const shared = (globalThis as Record<symbol, Map<symbol, unknown> | undefined>)[LOCAL_RUNTIME_VALUES];
  const values = shared ?? own;
  if (!values.has(key)) values.set(key, make());
  return values.get(key) as T;
}
