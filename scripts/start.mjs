// `npm start`: build, serve the whole API through serverless-offline (scripts/devServer.ts startService, the
// same function the tests and benches use), and on every save rebuild with esbuild's watch mode and restart
// serverless-offline once the rebuild ends (debounced). docs/connections.md says why serverless-offline's
// reload-handler flag is not used.
import * as esbuild from 'esbuild';
import { buildOptions } from './build.mjs';
import { buildWeb } from './buildWeb.mjs';

let builds = 0;
let onRebuilt = () => {};
let timer;
const options = buildOptions();
options.plugins.push({
  name: 'restart-offline',
  setup(build) {
    build.onEnd((result) => {
      // Build 1 is the first build below, build 2 the one watch mode starts with: neither follows a save.
      builds++;
      if (builds <= 2 || result.errors.length > 0) return;
      clearTimeout(timer);
      timer = setTimeout(() => onRebuilt(), 300);
    });
  },
});
const ctx = await esbuild.context(options);
await Promise.all([ctx.rebuild(), buildWeb()]);
await ctx.watch();
const { runDevServer } = await import('../dist/scripts/devServer.js');
const svc = await runDevServer();
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
