'use strict';
// What every local patch does when what it patches no longer looks as it expects (local/README.md, "Patches"):
// it stops, naming itself and what it missed, instead of leaving the dependency unpatched without a word.
// The install runs every check (local/postinstall.mjs), and each serverless-offline plugin checks again
// when serverless-offline starts.

const { readFileSync } = require('node:fs');

class PatchDriftError extends Error {
  constructor(patch, what) {
    super(
      `local patch "${patch}": ${what}. What it patches has changed; local/README.md says what the patch fixes ` +
        'and when it can go: update the patch to the new version, or remove it.',
    );
    this.name = 'PatchDriftError';
    this.patch = patch;
  }
}

/** Throws a PatchDriftError for `patch` unless `ok`. */
function expectShape(patch, ok, what) {
  if (!ok) throw new PatchDriftError(patch, what);
}

/** `require.resolve(id)` from `paths`, or a PatchDriftError naming it. */
function resolveFrom(patch, id, paths) {
  try {
    return require.resolve(id, { paths });
  } catch {
    throw new PatchDriftError(patch, `${id} is not found from ${paths.join(', ')}`);
  }
}

/** `require(id)` from `paths`, or a PatchDriftError naming it. */
function requireFrom(patch, id, paths) {
  return require(resolveFrom(patch, id, paths));
}

/** Throws unless the file at `path` holds every one of `texts`. */
function expectSource(patch, path, texts) {
  let source;
  try {
    source = readFileSync(path, 'utf8');
  } catch {
    throw new PatchDriftError(patch, `${path} is missing`);
  }
  for (const t of texts) expectShape(patch, source.includes(t), `${path} no longer holds \`${t}\``);
}

module.exports = { PatchDriftError, expectShape, expectSource, requireFrom, resolveFrom };
