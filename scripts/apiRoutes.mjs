// The HTTP routes of serverless.yml (its `functions:` list of `${file(serverless/<group>.yml)}`), and an
// esbuild plugin that turns them into the module `api-routes:all`: every route with its handler imported,
// so the OpenAPI document (lib/http/openapi/) is generated from the endpoints' own options and schemas.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const FILE_REF = /^\$\{file\((.+?)\)\}$/;

/** Function definitions from serverless.yml, following `${file(...)}` entries of its `functions:` list. */
function readFunctions(root) {
  const main = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'));
  const list = Array.isArray(main.functions) ? main.functions : [main.functions ?? {}];
  const out = {};
  for (const entry of list) {
    const m = typeof entry === 'string' ? FILE_REF.exec(entry) : null;
    Object.assign(out, m ? parse(readFileSync(join(root, m[1]), 'utf8')) : entry);
  }
  return out;
}

/**
 * `[{ functionName, method, path, source }]` for every `http` event, `path` with a leading slash and
 * `method` lower-case (`any` kept), `source` the handler's TypeScript file relative to the root.
 */
export function readRoutes(root) {
  const routes = [];
  for (const [functionName, fn] of Object.entries(readFunctions(root))) {
    const source = `${String(fn.handler)
      .replace(/^dist\//, '')
      .replace(/\.[^./]+$/, '')}.ts`;
    for (const event of fn.events ?? []) {
      if (!event?.http) continue;
      const http =
        typeof event.http === 'string'
          ? { method: event.http.split(' ')[0], path: event.http.split(' ')[1] }
          : event.http;
      const path = `/${String(http.path).replace(/^\/+/, '')}`;
      routes.push({ functionName, method: String(http.method).toLowerCase(), path, source });
    }
  }
  return routes;
}

export function apiRoutesPlugin(root) {
  return {
    name: 'api-routes',
    setup(build) {
      build.onResolve({ filter: /^api-routes:all$/ }, () => ({ path: 'all', namespace: 'api-routes' }));
      build.onLoad({ filter: /.*/, namespace: 'api-routes' }, () => {
        const routes = readRoutes(root);
        const sources = [...new Set(routes.map((r) => r.source))];
        const imports = sources.map((s, i) => `import * as m${i} from ${JSON.stringify(join(root, s))};`);
        const rows = routes.map(
          (r) =>
            `{ functionName: ${JSON.stringify(r.functionName)}, method: ${JSON.stringify(r.method)}, ` +
            `path: ${JSON.stringify(r.path)}, module: m${sources.indexOf(r.source)} }`,
        );
        return {
          contents: `${imports.join('\n')}\nexport const routes = [\n${rows.join(',\n')}\n];\n`,
          loader: 'js',
          resolveDir: root,
          watchFiles: [join(root, 'serverless.yml'), ...sources.map((s) => join(root, s))],
        };
      });
    },
  };
}
