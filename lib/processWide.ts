/**
 * A value shared by every copy of a module in one process, kept on `globalThis` under `key`
 * (a `Symbol.for` name) and made by `make` on first use. On Lambda a process runs one function's bundle,
 * so this is the module's own value. Under `npm start` serverless-offline runs every function's bundle in
 * one process (docs/connections.md, "One process"), each with its own copy of `lib`: an
 * `AsyncLocalStorage` made per copy would not see a request context set by another copy, and each one
 * costs every promise of the process a copy of its store (Node propagates each enabled storage to each new
 * async resource), so the process would slow down with every function it has loaded.
 */
export function processWide<T>(key: symbol, make: () => T): T {
  const holder = globalThis as Record<symbol, unknown>;
  if (!(key in holder)) holder[key] = make();
  return holder[key] as T;
}
