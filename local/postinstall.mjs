// Run by `npm ci`/`npm install` (package.json postinstall): makes the embedded database's trimmed PostGIS
// bundle (lib/db/embedded/postgisBundle.mjs) now, so that the first `npm start` does not spend about 2 s on it.
// A failure here is not the install's: the start makes the bundle, or loads the package's own.
import { trimmedBundle } from '../lib/db/embedded/postgisBundle.mjs';

try {
  trimmedBundle();
} catch (e) {
  console.warn(`trimPostgisBundle: not made now (${e.message}); the first start makes it`);
}
