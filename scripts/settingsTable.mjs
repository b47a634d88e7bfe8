// README.md's settings table, generated from lib/settings.ts (its one declaration of every variable).
// `node scripts/settingsTable.mjs` prints it, `--write` replaces the table in README.md with it, `--check`
// exits 1 when README.md's differs (tests/unit/settings.test.ts checks the same).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;

/** A number as README writes it: whole MiB and GiB by their unit. */
function amount(n) {
  if (n >= 1024 * MiB && n % (1024 * MiB) === 0) return `${n / (1024 * MiB)} GiB`;
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  return String(n);
}

function shownDefault(d) {
  if (d.shown !== undefined) return d.shown;
  if (d.kind === 'list' || d.default === undefined || d.default === '') return '(none)';
  if (d.kind === 'number') return amount(d.default);
  return `\`${d.default}\``;
}

/** The type and bounds of a declaration, in words. */
function values(d) {
  switch (d.kind) {
    case 'number': {
      const n = `${d.integer ? 'integer' : 'number'} ${d.zero ? '≥ 0' : '> 0'}`;
      return d.max === undefined ? n : `${n}, at most ${amount(d.max)}`;
    }
    case 'text':
      return 'text';
    case 'choice':
      return d.values.map((v) => `\`${v}\``).join(', ');
    case 'flag':
      return '`true`, `false`';
    case 'list':
      return 'comma-separated';
  }
  throw new Error(`unknown setting kind ${d.kind}`);
}

/** The table of `settings` (lib/settings.ts's SETTINGS), one row per variable, in its order. */
export function renderSettingsTable(settings) {
  const rows = Object.entries(settings).map(
    ([name, d]) => `| \`${name}\` | ${shownDefault(d)} | ${values(d)} | ${d.meaning} |`,
  );
  return ['| variable | default | values | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The table README.md's "Settings (environment)" section holds (its lines from the first `|` row on). */
export function readmeSettingsTable(readme) {
  const section = readme.split(/^## Settings \(environment\)$/m)[1]?.split(/^## /m)[0] ?? '';
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** README.md's text with `table` in place of its settings table. */
export function withSettingsTable(readme, table) {
  const old = readmeSettingsTable(readme);
  if (!old) throw new Error('README.md has no table under "## Settings (environment)"');
  return readme.replace(old, table);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { SETTINGS } = createRequire(import.meta.url)('./settings.cjs');
  const table = renderSettingsTable(SETTINGS);
  const path = fileURLToPath(new URL('../README.md', import.meta.url));
  const readme = readFileSync(path, 'utf8');
  if (process.argv.includes('--write')) writeFileSync(path, withSettingsTable(readme, table));
  else if (process.argv.includes('--check')) {
    if (readmeSettingsTable(readme) !== table) {
      process.stderr.write(
        "README.md's settings table differs from lib/settings.ts: run node scripts/settingsTable.mjs --write\n",
      );
      process.exit(1);
    }
  } else process.stdout.write(`${table}\n`);
}
