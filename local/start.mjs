// `npm start`: builds the local build when a source changed since its last build (scripts/build.mjs), then
// serves the whole API through serverless-offline (local/npmStart.ts runDevServer, over the startService of
// local/devServer.ts that the tests and benches use). It holds no watcher.
//
// `npm run dev` (`--watch`): the same, and on every save esbuild's watch mode rebuilds and serverless-offline
// is restarted once the rebuild ends (debounced). docs/connections.md says why serverless-offline's
// reload-handler flag is not used.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { buildLocal, buildLocalIfChanged, LOCAL_LOCATION, localBuildOptions } from '../scripts/build.mjs';
import { prepareDataFolder } from './embedded/dataFolder.mjs';

const watch = process.argv.includes('--watch');
const started = Date.now();
// Until the service is up (runDevServer then stops it), Ctrl-C or SIGTERM ends this process and the initdb
// process below at once.
const stopEarly = new AbortController();
const onEarlySignal = (signal) => {
  stopEarly.abort();
  process.exit(signal === 'SIGINT' ? 130 : 143);
};
process.once('SIGINT', onEarlySignal);
process.once('SIGTERM', onEarlySignal);
// On the embedded database, a new data folder's initdb (several seconds, in a process of its own) runs while
// the local build is made (docs/connections.md, "The embedded database's first start").
// lib/settings.ts read through scripts/settings.cjs: this runs before the build, as plain JavaScript.
const { setting } = createRequire(import.meta.url)('../scripts/settings.cjs');
const dataDir = setting('DATA_DIR');
const dataFolderReady =
  setting('DATABASE_URL') || dataDir.startsWith('memory://')
    ? undefined
    : prepareDataFolder(resolve(dataDir), stopEarly.signal);
// Awaited by the database's start; marked handled here so a failure before that is not an unhandled rejection.
dataFolderReady?.catch(() => {});
let ctx;
let buildMs = null;
let onRebuilt = () => {};
if (watch) {
  let builds = 0;
  let timer;
  const options = localBuildOptions();
  options.plugins.push({
    name: 'restart-offline',
    setup(build) {
      build.onEnd((result) => {
        // Build 1 is buildLocal's, build 2 the one watch mode starts with: neither follows a save.
        builds++;
        if (builds <= 1 || result.errors.length > 0) return;
        clearTimeout(timer);
        timer = setTimeout(() => onRebuilt(), 300);
      });
    },
  });
  await buildLocal();
  buildMs = Date.now() - started;
  ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  buildMs = await buildLocalIfChanged();
}
const { runDevServer } = await import(`../${LOCAL_LOCATION}/dist/local/npmStart.js`);
const svc = await runDevServer({ started, buildMs, dataFolderReady, onStop: () => ctx?.dispose() });
process.off('SIGINT', onEarlySignal);
process.off('SIGTERM', onEarlySignal);
let restarting = Promise.resolve();
let queued = false;
onRebuilt = () => {
  if (queued) return;
  queued = true;
  restarting = restarting.then(async () => {
    queued = false;
    const t0 = Date.now();
    try {
      await svc.restart();
      console.log(`rebuilt: serverless-offline restarted in ${Date.now() - t0} ms`);
    } catch (e) {
      console.error(`rebuilt, but serverless-offline did not restart: ${e.message}`);
    }
  });
};
