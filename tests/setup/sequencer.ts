import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest (seconds, roughly, in one leg of CI on 2 cores), started first so that
 * a leg does not end with one long file running alone on an otherwise idle machine. Vitest's own order
 * (longest first by its results cache) needs a cache a fresh clone does not have; without it, larger files
 * go first, and file size says little about time. A stale figure only makes a leg a little slower.
 */
const SECONDS: Record<string, number> = {
  'tests/api/ogc-gdal.test.ts': 50,
  'tests/web/configure.test.ts': 45,
  'tests/api/large-answers.test.ts': 40,
  'tests/api/uploads-large.test.ts': 40,
  'tests/api/geodatasets-export.test.ts': 40,
  'tests/web/viewer.test.ts': 35,
  'tests/api/restart.test.ts': 30,
  'tests/db/tiles.test.ts': 30,
  'tests/db/pglite-wire-server.test.ts': 29,
  'tests/db/draw-ownership-migration.test.ts': 29,
  'tests/unit/gateway-cache.test.ts': 25,
  'tests/api/undeclared-input.test.ts': 21,
  'tests/unit/package-database.test.ts': 19,
  'tests/db/dataApi-driver.test.ts': 17,
  'tests/api/uploads.test.ts': 16,
  'tests/api/draw-files.test.ts': 15,
  'tests/api/draw.test.ts': 15,
  'tests/unit/declared-bounds.test.ts': 14,
  'tests/db/geodatasets-write-atomic.test.ts': 12,
};

function seconds(spec: TestSpecification): number {
  const path = spec.moduleId.slice(spec.project.config.root.length + 1).replaceAll('\\', '/');
  return SECONDS[path] ?? 0;
}

export default class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Within one group order, the listed files by their time, then the rest as Vitest ordered them (the
    // sort is stable).
    return (await super.sort(files)).sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        seconds(b) - seconds(a),
    );
  }
}
