import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs cite what exists: every repository path in backticks in docs/*.md and README.md (and every
 * `docs/<name>.md` mentioned anywhere in them) is a file or folder, and every setting of README.md's
 * settings table is read somewhere in the code.
 */
const root = process.cwd();
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const TOP = [
  'lib',
  'functions',
  'tests',
  'scripts',
  'serverless',
  'bench',
  'docs',
  'sql',
  'web',
  'types',
  'bin',
];
const ROOT_FILES =
  /^(serverless\.yml|package\.json|package-lock\.json|tsconfig\.json|biome\.json|vitest\.config\.ts|README\.md)$/;

/**
 * The repository paths a doc cites: backticked paths and bare `docs/<name>.md` mentions, with their line.
 * The first column of a "before → after" table (docs/architecture.md's module map) is history: skipped.
 */
function citedPaths(text: string): { path: string; line: number }[] {
  const out: { path: string; line: number }[] = [];
  let history = false;
  text.split('\n').forEach((raw, i) => {
    if (/^#/.test(raw)) history = /before → after/.test(raw);
    const line = history && raw.startsWith('|') ? raw.split('|').slice(2).join('|') : raw;
    for (const [, span] of line.matchAll(/`([^`\s]+)`/g)) {
      const path = span.replace(/[#:].*$/, '').replace(/[.,;)]+$/, '');
      if (/[<>{}*$[\]|]|\.\.\./.test(path) || path.startsWith('/')) continue; // patterns, placeholders, URL paths
      const top = path.split('/')[0];
      if ((TOP.includes(top) && path.includes('/')) || ROOT_FILES.test(path)) out.push({ path, line: i + 1 });
    }
    for (const [path] of line.matchAll(/(?<![\w/.`-])docs\/[\w-]+\.md/g)) out.push({ path, line: i + 1 });
  });
  return out;
}

/** The settings README.md's settings table names: the backticked names of its first column. */
function settings(readme: string): string[] {
  const section = readme.split(/^## Settings/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
}

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name === 'dist'
      ? []
      : e.isDirectory()
        ? sources(join(dir, e.name))
        : /\.(ts|mjs|js|cjs|yml)$/.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
}

describe('docs cite what exists', () => {
  it('every cited path is a file or folder of the repository', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const doc of docs) {
      for (const { path, line } of citedPaths(readFileSync(join(root, doc), 'utf8'))) {
        cited++;
        if (!existsSync(join(root, path))) missing.push(`${doc}:${line}: ${path}`);
      }
    }
    expect(cited).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it("every setting of README.md's table is read by the code", () => {
    const names = settings(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(names.length).toBeGreaterThan(20);
    const code = ['lib', 'functions', 'scripts', 'serverless', 'bench', 'bin']
      .flatMap((d) => sources(join(root, d)))
      .concat([join(root, 'serverless.yml')])
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(names.filter((n) => !new RegExp(`\\b${n}\\b`).test(code))).toEqual([]);
  });

  it('the citation finder finds what it should', () => {
    const found = citedPaths(
      'See `lib/db/driver.ts:12`, `docs/tiles.md#cache`, docs/auth.md, `serverless.yml`, `lib/<area>/x.ts`, `/api/x`, `npm start`.\n' +
        '## Module map (before → after)\n| `lib/old.ts` | `lib/new.ts` |\n## Next\n| `lib/a.ts` | x |',
    ).map((c) => c.path);
    expect(found).toEqual([
      'lib/db/driver.ts',
      'docs/tiles.md',
      'serverless.yml',
      'docs/auth.md',
      'lib/new.ts',
      'lib/a.ts',
    ]);
  });
});
