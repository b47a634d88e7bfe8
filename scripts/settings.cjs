'use strict';
// lib/settings.ts for plain-JavaScript tools (the serverless plugins, local/start.mjs, scripts/settingsTable.mjs),
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

/**
 * A declared variable's text as set (undefined when unset or empty, as lib/settings.ts reads it), for a
 * check that must tell an unset variable from a bad one where the service would take either as its default:
 * the deployment plugin refuses to package without an AUTH and with an AUTH that is no mode.
 * @param {import('../lib/settings.ts').SettingName} name
 * @param {import('../lib/settings.ts').Env} [env]
 * @returns {string | undefined}
 */
function settingText(name, env = process.env) {
  if (!Object.hasOwn(compiled.exports.SETTINGS, name))
    throw new Error(`${name} is not declared in lib/settings.ts`);
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** @type {typeof import('../lib/settings.ts') & { settingText: typeof settingText }} */
module.exports = { ...compiled.exports, settingText };
