'use strict';
// Preloaded into serverless-offline by local/devServer.ts (`node --require`). serverless-offline runs every
// function's bundle in one process (docs/connections.md, "One process"), each bundle with its own copy of
// lib/: lib/processWide.ts keeps its process-wide values (the log context, the statement log, the pools) in
// the Map this puts on `globalThis`, so that every copy shares them. This is the only process-wide state on
// `globalThis`, and only the local runtime makes it: on Lambda a process runs one bundle, nothing puts the
// Map there, and each value is its module's own.
const key = Symbol.for('mmgis-serverless.local.processWide');
globalThis[key] ??= new Map();
