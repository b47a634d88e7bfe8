import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTINGS, type SettingName, setting, settingIfSet } from '#lib/settings.ts';
import { readmeSettingsTable, renderSettingsTable } from '../../scripts/settingsTable.mjs';

const root = process.cwd();

function sources(dir: string, pattern = /\.(ts|mjs|cjs|js)$/): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name === 'dist'
      ? []
      : e.isDirectory()
        ? sources(join(dir, e.name), pattern)
        : pattern.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
}

const read = (f: string) => readFileSync(f, 'utf8');

describe('lib/settings.ts: every variable declared once, read through setting()', () => {
  afterEach(() => {
    delete process.env.TILE_MAX_FEATURES;
  });

  it.each([
    // name, text, value: unset and empty are the default; a bad number is the default
    ['TILE_MAX_FEATURES', undefined, 4096],
    ['TILE_MAX_FEATURES', '', 4096],
    ['TILE_MAX_FEATURES', '12.5', 12],
    ['TILE_MAX_FEATURES', '0', 4096],
    ['TILE_MAX_FEATURES', '-3', 4096],
    ['TILE_MAX_FEATURES', 'abc', 4096],
    ['TILE_MAX_FEATURES', 'Infinity', 4096],
    ['WEBSOCKET_MAX_MESSAGES', '12.5', 12.5],
    ['TILE_MAX_AGE', '0', 0],
    ['TILE_MAX_AGE', '-1', 300],
    ['TILE_MAX_BYTES', '5000000', 4 * 1024 * 1024],
    ['EXPORT_RETRY_SECONDS', '7200.5', 3600],
    ['AUTH', 'local', 'local'],
    ['AUTH', 'LOCAL', 'none'],
    ['DB_DRIVER', 'data-api', 'data-api'],
    ['DB_DRIVER', 'mysql', 'postgres'],
    ['DB_PREPARE', undefined, true],
    ['DB_PREPARE', 'false', false],
    ['DB_PREPARE', 'no', true],
    ['WEBHOOK_ALLOW_PRIVATE', 'true', true],
    ['WEBHOOK_ALLOW_PRIVATE', 'TRUE', false],
    ['TRUST_FORWARDED_HEADERS', 'TRUE', true],
    ['CORS_ORIGINS', undefined, []],
    ['CORS_ORIGINS', ' https://a.example , ,https://b.example', ['https://a.example', 'https://b.example']],
    ['PUBLIC_URL', '', undefined],
    ['MISSION_DATA_PREFIX', undefined, ''],
    ['AWS_REGION', undefined, 'us-east-1'],
  ] as [SettingName, string | undefined, unknown][])('%s=%j is %j', (name, text, want) => {
    expect(setting(name, text === undefined ? {} : { [name]: text })).toEqual(want);
  });

  it('reads process.env at each call; settingIfSet is undefined where the default would apply', () => {
    expect(setting('TILE_MAX_FEATURES')).toBe(4096);
    process.env.TILE_MAX_FEATURES = '7';
    expect(setting('TILE_MAX_FEATURES')).toBe(7);
    expect(settingIfSet('TILE_MAX_FEATURES')).toBe(7);
    expect(settingIfSet('TILE_MAX_AGE', {})).toBeUndefined();
    expect(settingIfSet('TILE_MAX_AGE', { TILE_MAX_AGE: 'x' })).toBeUndefined();
  });

  it('every default is within its own bounds', () => {
    for (const [name, d] of Object.entries(SETTINGS)) {
      if (d.kind === 'number' && d.default !== undefined)
        expect(setting(name as SettingName, { [name]: String(d.default) }), name).toBe(d.default);
    }
  });

  it("README.md's settings table is the one generated from the declarations", () => {
    // On a difference: node scripts/settingsTable.mjs --write
    expect(readmeSettingsTable(read(join(root, 'README.md')))).toBe(renderSettingsTable(SETTINGS));
  });

  it('lib/, functions/, the local runtime, scripts/ and the serverless plugins read the environment only through lib/settings.ts', () => {
    const readers = ['lib', 'functions', 'local', 'scripts', join('serverless', 'plugins')]
      .flatMap((d) => sources(join(root, d)))
      .filter((f) => /process\.env\b/.test(read(f)))
      .map((f) => f.slice(root.length + 1))
      .sort();
    // local/devServer.ts hands its environment on to serverless-offline's process (and reads its settings
    // from that copy); scripts/settings.cjs is lib/settings.ts for plain JavaScript.
    expect(readers).toEqual(['lib/settings.ts', 'local/devServer.ts', 'scripts/settings.cjs']);
  });

  it('every variable serverless.yml gives the functions is declared', () => {
    const yml = read(join(root, 'serverless.yml'));
    const block = yml.split(/^ {2}environment:\n/m)[1]?.split(/^ {2}\S/m)[0] ?? '';
    const names = [...block.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(40);
    const platform = ['NODE_OPTIONS'];
    expect(names.filter((n) => !(n in SETTINGS) && !platform.includes(n))).toEqual([]);
  });

  it('every declared variable is read somewhere', () => {
    const code = ['lib', 'functions', 'local', 'scripts']
      .flatMap((d) => sources(join(root, d)))
      .filter((f) => !f.endsWith(join('lib', 'settings.ts')))
      .map(read)
      .join('\n');
    const unread = Object.keys(SETTINGS).filter(
      (n) => !code.includes(`'${n}'`) && !new RegExp(`process\\.env\\.${n}\\b`).test(code),
    );
    expect(unread).toEqual([]);
  });
});
