// Run by `npm ci`/`npm install` (package.json postinstall), after patch-package has applied
// local/patches/*.patch:
// 1. indexes PGlite's dlsym lookup (local/patches/pgliteDlsym.mjs);
// 2. makes the embedded database's trimmed PostGIS bundle (local/embedded/postgisBundle.mjs) now, so that the
//    first `npm start` does not spend about 2 s on it (a failure to make it is not the install's: the start
//    makes it, or loads the package's own);
// 3. checks that every patch of the local runtime still fits what it patches (local/patches/checks.mjs), and
//    fails the install, naming each one that does not (local/README.md, "Patches").
// Running it again changes nothing (each step sees its work already done).
import { fileURLToPath } from 'node:url';
import { trimmedBundle } from './embedded/postgisBundle.mjs';
import { checkPatches } from './patches/checks.mjs';
import { applyDlsymPatch } from './patches/pgliteDlsym.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
let failed = false;

try {
  const patched = applyDlsymPatch();
  if (patched.length > 0) console.log(`local/postinstall: PGlite's dlsym indexed in ${patched.join(', ')}`);
} catch (e) {
  console.error(e.message);
  failed = true;
}

try {
  trimmedBundle();
} catch (e) {
  console.warn(
    `local/postinstall: the trimmed PostGIS bundle was not made now (${e.message}); the first start makes it`,
  );
}

for (const { name, message } of await checkPatches(root)) {
  if (failed && name === 'pglite-dlsym') continue;
  console.error(`local/postinstall: ${name}: ${message}`);
  failed = true;
}
if (failed) process.exit(1);
