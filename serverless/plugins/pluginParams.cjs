'use strict';
// How the local serverless plugins read their `--param` values (serverless.yml's custom.*): a parameter
// arrives as text or as YAML's boolean, and a value that is neither true nor false fails the package
// naming it, rather than turning a part of the stack on or off by accident.

/** `true`/`false` (any case, boolean or text); unset or empty: `fallback`; anything else throws. */
function flag(value, fallback) {
  if (value === undefined || value === null || value === '') return fallback;
  const v = String(value).toLowerCase();
  if (v === 'true' || v === 'false') return v === 'true';
  throw new Error(`${value}: true or false`);
}

module.exports = { flag };
