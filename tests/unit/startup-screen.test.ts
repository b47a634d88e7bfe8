import { describe, expect, it } from 'vitest';
import { showRoutes, startupScreen } from '../../local/npmStart.ts';

const base = 'http://localhost:8888';
const embedded = {
  base,
  databaseUrl: 'postgres://postgres:secret@127.0.0.1:5555/postgres?sslmode=disable&embedded=pglite',
  embedded: true,
  dataDir: '/home/me/app/.data/pglite',
  seconds: 3.2,
  buildMs: null,
  databaseMs: 1500,
};

describe("npm start's screen (local/npmStart.ts startupScreen)", () => {
  it('names, in order, the API and OpenAPI, the pages, the WebSocket, the database and the first step', () => {
    const lines = startupScreen({ ...embedded, hasAdmin: false });
    expect(lines.length).toBeLessThanOrEqual(15);
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const order = [
      at(/^mmgis-serverless answered in 3\.2 s \(build up to date, database ready at 1\.5 s\)/),
      at(/API +http:\/\/localhost:8888\/api\/ +OpenAPI: http:\/\/localhost:8888\/api\/openapi\.json/),
      at(/Map viewer +http:\/\/localhost:8888\/ +Configure: http:\/\/localhost:8888\/configure/),
      at(/WebSocket +ws:\/\/localhost:8888\//),
      at(/Database +embedded PGlite \+ PostGIS, data in \/home\/me\/app\/\.data\/pglite/),
      // The URL for psql: this start's password, without the driver's own `embedded` parameter.
      at(
        /postgres:\/\/postgres:secret@127\.0\.0\.1:5555\/postgres\?sslmode=disable +\(this start's password/,
      ),
      at(/no administrator yet/),
      at(/curl -X POST http:\/\/localhost:8888\/api\/users\/first_signup/),
    ];
    expect(
      order.every((i) => i >= 0),
      lines.join('\n'),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(lines.join('\n')).not.toContain('embedded=pglite');
  });

  it('leaves out the first step once an administrator exists, and hides a server URL password', () => {
    const lines = startupScreen({
      ...embedded,
      embedded: false,
      databaseUrl: 'postgres://app:hunter2@db.example:5432/mmgis',
      hasAdmin: true,
    });
    expect(lines.join('\n')).not.toMatch(/administrator|first_signup|hunter2/);
    expect(lines.join('\n')).toContain('postgres://app:***@db.example:5432/mmgis');
    expect(lines.length).toBeLessThanOrEqual(15);
  });

  it("shows serverless-offline's route table only when asked (--routes, SLS_LOG_LEVEL)", () => {
    expect(showRoutes(['node', 'start.mjs'], {})).toBe(false);
    expect(showRoutes(['node', 'start.mjs', '--routes'], {})).toBe(true);
    expect(showRoutes(['node', 'start.mjs'], { SLS_LOG_LEVEL: 'notice' })).toBe(true);
  });
});
