'use strict';
// lib/settings.ts for plain-JavaScript tools (the local runtime's serverless plugins, scripts/settingsTable.mjs),
// which Node 20 cannot import as TypeScript: the same module compiled in memory by esbuild (it imports
// nothing), so a variable's default stays declared once.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('esbuild');

const file = join(__dirname, '..', 'lib', 'settings.ts');
const { code } = transformSync(readFileSync(file, 'utf8'), {
  loader: 'ts',
  format: 'cjs',
  target: 'node20',
  sourcefile: file,
});
const compiled = { exports: {} };
new Function('exports', 'module', 'require', code)(compiled.exports, compiled, require);

/** @type {typeof import('../lib/settings.ts')} */
module.exports = compiled.exports;
