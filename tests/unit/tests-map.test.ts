import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * tests/README.md maps each area of the code to its test files: every test file of tests/ is named there
 * (by its path under tests/), and every test file it names exists.
 */
const tests = join(process.cwd(), 'tests');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name === '__snapshots__'
      ? []
      : e.isDirectory()
        ? testFiles(join(dir, e.name))
        : e.name.endsWith('.test.ts')
          ? [relative(tests, join(dir, e.name))]
          : [],
  );
}

/** The test files the map names: `folder/name.test.ts`, with or without a leading `tests/`. */
function named(map: string): Set<string> {
  return new Set([...map.matchAll(/(?<![\w.-])(?:tests\/)?([\w-]+\/[\w.-]+\.test\.ts)/g)].map((m) => m[1]));
}

describe('tests/README.md', () => {
  const map = named(readFileSync(join(tests, 'README.md'), 'utf8'));

  it('names every test file', () => {
    const files = testFiles(tests);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => !map.has(f))).toEqual([]);
  });

  it('names only test files that exist', () => {
    expect([...map].filter((f) => !existsSync(join(tests, f)))).toEqual([]);
  });
});
