// `npm start`: build (then rebuild on every save) and serve the whole API through serverless-offline.
import * as esbuild from 'esbuild';
import { buildOptions } from './build.mjs';
import { buildWeb } from './buildWeb.mjs';

const ctx = await esbuild.context(buildOptions());
await Promise.all([ctx.rebuild(), buildWeb()]);
await ctx.watch();
const { runDevServer } = await import('../dist/scripts/devServer.js');
await runDevServer();
