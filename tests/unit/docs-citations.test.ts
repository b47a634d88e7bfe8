import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs and the code's comments cite what exists: every repository path that README.md, a folder's
 * README (tests/README.md; its paths may also be under its folder), docs/*.md and the comments of the code
 * name (a doc, a module, a test, a folder such as `lib/http/`) is a file or folder of the repository.
 * CHANGES.md is history and may name files that are gone: it is not checked. (README.md's settings table
 * is generated from lib/settings.ts and checked by tests/unit/settings.test.ts.)
 *
 * An example is not a citation: a path inside a URL path (`/Missions/<mission>/x.png`, `/api/x`), with a
 * placeholder (`<area>`, `{name}`, `*`, `...`), or in a doc's fenced code block (commands, other projects'
 * trees), is left out; so are the strings of the code.
 */
const root = process.cwd();
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
  'local',
];
const ROOT_FILES =
  /^(serverless\.yml|package\.json|package-lock\.json|tsconfig\.json|biome\.json|vitest\.config\.ts|README\.md|CHANGES\.md)$/;
/** The folders whose code comments are checked, and the code files in them. */
const CODE_DIRS = ['lib', 'functions', 'scripts', 'serverless', 'tests', 'bench', 'web', 'bin', 'local'];
const CODE_FILE = /\.(ts|mts|mjs|js|cjs|yml)$/;
/**
 * A bare repository path in prose: a top folder, then path characters (placeholder characters included, so
 * that a pattern is seen whole and left out), not inside a URL path or a name.
 */
const BARE_PATH = new RegExp(`(?<![\\w/.@#~$%-])(?:${TOP.join('|')})/[\\w.\\-/*<>{}$]*[\\w/*>}]`, 'g');
/** What makes a path an example or a pattern rather than a citation. */
const PLACEHOLDER = /[<>{}*$[\]|]|\.\.\./;

interface Citation {
  path: string;
  line: number;
}

/** A path as cited, without its anchor, line number or the sentence's punctuation. */
function clean(span: string): string {
  return span.replace(/[#:].*$/, '').replace(/[.,;)]+$/, '');
}

/** Bare repository paths in one line of prose or comment (not followed by a placeholder: `lib/<x>`). */
function barePaths(text: string, line: number): Citation[] {
  const out: Citation[] = [];
  for (const [span] of text.matchAll(BARE_PATH)) {
    const path = clean(span);
    if (!PLACEHOLDER.test(path)) out.push({ path, line });
  }
  return out;
}

/**
 * The repository paths a doc cites: backticked paths and bare ones, with their line. The first column of a
 * "before → after" table (docs/architecture.md's module map) is history: skipped.
 */
function citedPaths(text: string): Citation[] {
  const out: Citation[] = [];
  let history = false;
  let fenced = false;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*```/.test(raw)) fenced = !fenced;
    if (/^#/.test(raw)) history = /before → after/.test(raw);
    const line = history && raw.startsWith('|') ? raw.split('|').slice(2).join('|') : raw;
    const ticked = new Set<string>();
    for (const [, span] of line.matchAll(/`([^`\s]+)`/g)) {
      ticked.add(span);
      const path = clean(span);
      if (PLACEHOLDER.test(path) || path.startsWith('/')) continue; // patterns, placeholders, URL paths
      const top = path.split('/')[0];
      if ((TOP.includes(top) && path.includes('/')) || ROOT_FILES.test(path)) out.push({ path, line: i + 1 });
    }
    if (!fenced) out.push(...barePaths(line.replace(/`[^`\s]+`/g, ' '), i + 1));
  });
  return out;
}

/**
 * The comment text of a code file, line by line: `//` and `/* … *\/` comments (a `//` inside a string or
 * after a `:` as in a URL is not one), or `#` comments in YAML.
 */
function commentLines(text: string, yaml: boolean): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let inBlock = false;
  text.split('\n').forEach((l, i) => {
    let comment = '';
    if (inBlock) {
      const end = l.indexOf('*/');
      comment = end < 0 ? l : l.slice(0, end);
      inBlock = end < 0;
    } else if (yaml) {
      const hash = l.search(/(^|\s)#/);
      if (hash >= 0) comment = l.slice(hash);
    } else {
      const block = commentStart(l, /[\s;,(){}]\/\*/, '/*');
      const slashes = commentStart(l, /[\s;,(){}]\/\//, '//');
      if (block >= 0 && (slashes < 0 || block < slashes)) {
        const rest = l.slice(block + 2);
        const end = rest.indexOf('*/');
        comment = end < 0 ? rest : rest.slice(0, end);
        inBlock = end < 0;
      } else if (slashes >= 0) comment = l.slice(slashes);
    }
    if (comment) out.push({ text: comment, line: i + 1 });
  });
  return out;
}

/**
 * Where a comment opens on a line, or -1: at its start or after white space or code punctuation, so that
 * `'/*'` in a string, a glob `a/*.ts` or a URL's `http://` opens none.
 */
function commentStart(line: string, after: RegExp, open: string): number {
  if (line.startsWith(open)) return 0;
  const m = after.exec(line);
  return m ? m.index + 1 : -1;
}

/** The repository paths a code file's comments cite. */
function commentCitations(text: string, yaml: boolean): Citation[] {
  return commentLines(text, yaml).flatMap((c) => barePaths(c.text, c.line));
}

function files(dir: string, match: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name === 'dist' || e.name === '__snapshots__'
      ? []
      : e.isDirectory()
        ? files(join(dir, e.name), match)
        : match.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
}

/** `file:line: path` for every citation of `found` that names nothing in the repository (or under `base`). */
function dead(file: string, found: Citation[], base = ''): string[] {
  return found
    .filter((c) => !existsSync(join(root, c.path)) && !(base && existsSync(join(root, base, c.path))))
    .map((c) => `${file}:${c.line}: ${c.path}`);
}

describe('docs and comments cite what exists', () => {
  it('every path the READMEs and docs/*.md cite is a file or folder of the repository', () => {
    const docs = [
      'README.md',
      ...TOP.map((d) => `${d}/README.md`).filter((f) => existsSync(join(root, f))),
      ...files(join(root, 'docs'), /\.md$/).map((f) => relative(root, f)),
    ];
    let cited = 0;
    const missing = docs.flatMap((doc) => {
      const found = citedPaths(readFileSync(join(root, doc), 'utf8'));
      cited += found.length;
      return dead(doc, found, doc.endsWith('/README.md') ? dirname(doc) : '');
    });
    expect(cited).toBeGreaterThan(300);
    expect(missing).toEqual([]);
  });

  it("every path the code's comments cite is a file or folder of the repository", () => {
    const code = [
      'serverless.yml',
      ...CODE_DIRS.flatMap((d) => files(join(root, d), CODE_FILE)).map((f) => relative(root, f)),
    ];
    let cited = 0;
    const missing = code.flatMap((file) => {
      const found = commentCitations(readFileSync(join(root, file), 'utf8'), file.endsWith('.yml'));
      cited += found.length;
      return dead(file, found);
    });
    expect(cited).toBeGreaterThan(500);
    expect(missing).toEqual([]);
  });

  it('the doc citation finder finds citations and leaves examples out', () => {
    const found = citedPaths(
      'See `lib/db/driver.ts:12`, `docs/tiles.md#cache`, docs/auth.md, `serverless.yml`, `lib/<area>/x.ts`, `/api/x`, `npm start`.\n' +
        'Bare: lib/http/endpoint.ts, (tests/unit/x.test.ts). URL paths: /Missions/MSL/Data/dem.tif, /api/lib/x.ts, ' +
        'GET /Missions/<mission>/x.png; placeholders lib/<domain>/x.ts, functions/{group}/x.ts, docs/*.md.\n' +
        '## Module map (before → after)\n| `lib/old.ts` | `lib/new.ts` |\n## Next\n| `lib/a.ts` | x |',
    ).map((c) => c.path);
    expect(found).toEqual([
      'lib/db/driver.ts',
      'docs/tiles.md',
      'serverless.yml',
      'docs/auth.md',
      'lib/http/endpoint.ts',
      'tests/unit/x.test.ts',
      'lib/new.ts',
      'lib/a.ts',
    ]);
  });

  it('the comment citation finder reads comments only, and a dead citation is reported', () => {
    const source = [
      "import { x } from '#lib/db/index.ts'; // the driver (lib/db/index.ts)",
      '/**',
      ' * Reads lib/nowhere/gone.ts and docs/tiles.md, "Caching"; serves /Missions/MSL/x.png.',
      ' */',
      "const url = 'http://host/lib/x.ts'; const p = 'lib/in/a/string.ts';",
    ].join('\n');
    const found = commentCitations(source, false);
    expect(found.map((c) => c.path)).toEqual(['lib/db/index.ts', 'lib/nowhere/gone.ts', 'docs/tiles.md']);
    expect(dead('x.ts', found)).toEqual(['x.ts:3: lib/nowhere/gone.ts']);
    expect(
      commentCitations('  # the stage cache (serverless/plugins/gone.cjs)\nkey: lib/x.ts', true),
    ).toEqual([{ path: 'serverless/plugins/gone.cjs', line: 1 }]);
  });
});
