import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitStatements } from '#lib/db/splitStatements.ts';

/**
 * The migration files' statements, one Data API call each (lib/db/migrate.ts). The counts per file were
 * read by hand and checked against PostgreSQL's own parser (libpg-query, `parse(text).stmts.length`) when
 * they were written; a new migration file must be added here.
 */
const STATEMENTS_PER_FILE: Record<string, number> = {
  '0001_postgis.sql': 1,
  '0002_auth.sql': 5,
  '0003_configs.sql': 1,
  '0004_geodatasets.sql': 1,
  '0005_jobs.sql': 2,
  '0006_ws_connections.sql': 4,
  '0007_draw.sql': 13,
  '0008_shortener_datasets.sql': 4,
  '0009_login_throttle.sql': 2,
  '0010_job_heartbeat.sql': 3,
  '0011_webhooks.sql': 3,
  '0012_draw_owner_ids.sql': 19,
  '0013_ws_limits.sql': 1,
  '0014_geodataset_extents.sql': 2,
  '0015_login_devices.sql': 3,
  '0016_time_or_null.sql': 1,
  '0017_tile_rank_levels.sql': 1,
  '0018_tile_rank_overviews.sql': 6,
  '0019_login_devices_owner.sql': 4,
  '0020_ws_source_ip.sql': 2,
  '0021_tile_pixel_levels.sql': 17,
};

const dir = join(process.cwd(), 'sql/migrations');
const files = readdirSync(dir).filter((f) => /^\d+_.*\.sql$/.test(f));

describe('splitStatements: the migration files', () => {
  it('knows every migration file (a new one: add its statement count above)', () => {
    expect(files.sort()).toEqual(Object.keys(STATEMENTS_PER_FILE).sort());
  });

  it.each(files)('%s splits into its statements', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const statements = splitStatements(text);
    expect(statements).toHaveLength(STATEMENTS_PER_FILE[file]);
    for (const s of statements) {
      expect(s).not.toMatch(/;\s*$/);
      expect(s.trim()).toBe(s);
    }
    // Nothing of the file is lost: each statement appears in it, in order.
    let at = 0;
    for (const s of statements) {
      const found = text.indexOf(s, at);
      expect(found).toBeGreaterThanOrEqual(at);
      at = found + s.length;
    }
  });
});

describe('splitStatements: where a semicolon does not end a statement', () => {
  it.each([
    ['plain', 'select 1; select 2', ['select 1', 'select 2']],
    ['in a string', "select 'a;b'; select 2", ["select 'a;b'", 'select 2']],
    ['doubled quote in a string', "select 'it''s;'; select 2", ["select 'it''s;'", 'select 2']],
    ["E string with \\'", "select E'it\\'s; x'; select 2", ["select E'it\\'s; x'", 'select 2']],
    ['e string ending in \\\\', "select e'a\\\\'; select 2", ["select e'a\\\\'", 'select 2']],
    ['a typed literal whose type ends in e', "select time'\\'; select 2", ["select time'\\'", 'select 2']],
    ['in a quoted identifier', 'select "a;""b" from t; select 2', ['select "a;""b" from t', 'select 2']],
    ['in $$', 'select $$a;b$$; select 2', ['select $$a;b$$', 'select 2']],
    ['in $tag$ around $$', 'select $fn$ a; $$ ; $fn$; select 2', ['select $fn$ a; $$ ; $fn$', 'select 2']],
    [
      'in a DO body',
      "do $body$ begin perform 1; end $body$; select 'x'",
      ['do $body$ begin perform 1; end $body$', "select 'x'"],
    ],
    ['$1 is a parameter, not a tag', 'select $1::int; select $2', ['select $1::int', 'select $2']],
    ['$ inside an identifier', 'select a$b from t; select 2', ['select a$b from t', 'select 2']],
    ['in a -- comment', 'select 1 -- x; y\n; select 2', ['select 1 -- x; y', 'select 2']],
    [
      'in nested /* */ comments',
      'select 1 /* a; /* nested; */ still; */ ; select 2',
      ['select 1 /* a; /* nested; */ still; */', 'select 2'],
    ],
    ['empty statements', 'select 1;;; select 2;', ['select 1', 'select 2']],
    ['comment-only pieces', '-- only a comment\n;/* another */; select 1', ['select 1']],
    ['no trailing semicolon', 'select 1; select 2 -- end', ['select 1', 'select 2 -- end']],
    ['nothing', ' \n-- nothing\n', []],
  ])('%s', (_, text, expected) => {
    expect(splitStatements(text)).toEqual(expected);
  });

  it('a string left open runs to the end of the text (PostgreSQL then reports it)', () => {
    expect(splitStatements("select 1; select 'open; select 2")).toEqual([
      'select 1',
      "select 'open; select 2",
    ]);
  });
});
