import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { adminToken, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';
import { keepScreenshot, launch, openPage, poll } from './browser.ts';

const base = () => apiUrlLocal();

/** Replaces the CodeMirror editor's whole text by typing into it, as a person would paste. */
async function setEditor(page: Page, text: string) {
  const editor = page.getByRole('textbox', { name: 'Configuration JSON' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Creates a mission from the Missions page, as a person would, and waits for it to open. */
async function newMission(page: Page, mission: string): Promise<string> {
  await page.getByRole('link', { name: 'Missions' }).click();
  await page.getByLabel('Mission name').fill(mission);
  await page.getByRole('button', { name: 'New mission' }).click();
  await page.getByRole('heading', { name: new RegExp(`^${mission}`) }).waitFor();
  return mission;
}

describe('configure console in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launch();
    ({ page, errors } = await openPage(browser));
    page.on('dialog', (d) => d.accept());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('refuses a wrong password and logs in with the right one', async () => {
    const admin = inject('admin');
    await page.goto(`${base()}/configure`);
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toMatch(/.+/);
    await expect(page.getByRole('button', { name: 'Log in' }).isVisible()).resolves.toBe(true);
    await keepScreenshot(page, 'configure-login-refused');
    // The browser itself logs the refused request (401); that one line is the expected outcome.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/401.*\/api\/users\/login/);
    errors.length = 0;
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('link', { name: 'API Tokens' }).waitFor();
    await keepScreenshot(page, 'configure-missions');
  });

  it('generates a token that works over HTTP, then revokes it', async () => {
    await page.getByRole('link', { name: 'API Tokens' }).click();
    const name = uniqueName('browser');
    await page.getByLabel('Token Name').fill(name);
    // Its accessible name is its label alone, not the options' text run together.
    await page.getByRole('combobox', { name: 'Expire After', exact: true }).selectOption({ label: '1 day' });
    await page.getByRole('button', { name: 'Generate New Token' }).click();
    const token = (await page.getByLabel('New token').textContent())!.trim();
    expect(token.length).toBeGreaterThan(20);
    expect((await call('GET', '/api/users/list', { base: base(), token })).status).toBe(200);
    const row = page.getByRole('row').filter({ hasText: name });
    await poll(() => row.count()).toBe(1);
    await keepScreenshot(page, 'configure-tokens');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await poll(() => row.count()).toBe(0);
    expect((await call('GET', '/api/users/list', { base: base(), token })).status).toBe(401);
  });

  it('refuses an invalid config, stores a valid one and rolls back', async () => {
    const mission = await newMission(page, uniqueName('web_cfg'));
    const versions = async () =>
      (await call('GET', `/api/configure/versions?mission=${mission}`, { base: base(), token: adminToken() }))
        .body.versions.length;
    expect(await versions()).toBe(1);
    const original = (await call('GET', `/api/configure/get?mission=${mission}`, { base: base() })).body;

    await setEditor(page, JSON.stringify({ ...original, layers: [{ name: 'Bad', type: 'nonsense' }] }));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await poll(() => page.getByRole('alert').textContent()).toContain('not valid');
    await keepScreenshot(page, 'configure-invalid-config');
    expect(await versions()).toBe(1);

    const changed = { ...original, msv: { ...original.msv, view: [12, 34, 5] } };
    await setEditor(page, JSON.stringify(changed, null, 2));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 2' }).waitFor();
    expect(
      (await call('GET', `/api/configure/get?mission=${mission}`, { base: base() })).body.msv.view,
    ).toEqual([12, 34, 5]);

    const v1 = page.getByRole('row').filter({ has: page.getByRole('cell', { name: '1', exact: true }) });
    await v1.getByRole('button', { name: 'Roll back' }).click();
    await poll(versions).toBe(3);
    const now = (await call('GET', `/api/configure/get?mission=${mission}`, { base: base() })).body;
    expect(now.msv.view).toEqual(original.msv.view);
  });

  it('uploads a GeoJSON file through the presigned flow and deletes it', async () => {
    const name = uniqueName('web_upload');
    await page.getByRole('link', { name: 'GeoDatasets' }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    const fc = {
      type: 'FeatureCollection',
      features: [1, 2, 3].map((i) => ({
        type: 'Feature',
        properties: { i },
        geometry: { type: 'Point', coordinates: [i, i] },
      })),
    };
    await page.getByLabel('GeoJSON file').setInputFiles({
      name: 'points.geojson',
      mimeType: 'application/geo+json',
      buffer: Buffer.from(JSON.stringify(fc)),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    const done = page
      .getByRole('status')
      .or(page.getByRole('alert'))
      .filter({ hasText: /Upload: |upload/ });
    await poll(() => done.first().textContent(), { timeout: 30_000 }).toMatch(/succeeded|failed|refused/);
    expect(await done.first().textContent()).toContain('succeeded');
    const row = page.getByRole('row').filter({ hasText: name });
    await poll(() => row.count()).toBe(1);
    await keepScreenshot(page, 'configure-geodatasets');
    expect(
      (await call('GET', '/api/geodatasets/entries', { base: base() })).body.body.entries.some(
        (e: any) => e.name === name,
      ),
    ).toBe(true);
    await row.getByRole('button', { name: 'Delete' }).click();
    await poll(() => row.count()).toBe(0);
    expect(
      (await call('GET', `/api/geodatasets/tilejson/${name}`, { base: base(), token: adminToken() })).status,
    ).toBe(404);
    expect(errors).toEqual([]);
  }, 120_000);

  it('uploads a CSV dataset, lists it with its rows and columns, and deletes it', async () => {
    const name = uniqueName('web_csv');
    await page.getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('CSV file').setInputFiles({
      name: 'rows.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('site,depth\nA,1.5\nB,2\nC,7\n'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Dataset ${name} stored: 3 rows.` })
      .waitFor();
    const row = page.getByRole('row').filter({ hasText: name });
    await poll(() => row.count()).toBe(1);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(0, 3)).toEqual([name, '3', 'site, depth']);
    expect(await page.getByRole('columnheader').allTextContents()).toEqual([
      'Name',
      'Rows',
      'Columns',
      'Updated',
      'Occurrences',
      'Actions',
    ]);
    await keepScreenshot(page, 'configure-datasets');
    await row.getByRole('button', { name: 'Delete' }).click();
    await poll(() => row.count()).toBe(0);
    const listed = await call('GET', '/api/datasets/entries', { base: base(), token: adminToken() });
    expect(JSON.stringify(listed.body)).not.toContain(name);
    expect(errors).toEqual([]);
  });

  it("changes a user's role and missions, then removes the user", async () => {
    const u = await userWithSession('user', [], base());
    await page.getByRole('link', { name: 'Users' }).click();
    const row = page.getByRole('row').filter({ hasText: u.username });
    await poll(() => row.count()).toBe(1);
    const stored = async () =>
      (await call('GET', '/api/users/list', { base: base(), token: adminToken() })).body.body.users.find(
        (x: any) => x.username === u.username,
      );
    await page.getByLabel(`Role of ${u.username}`).selectOption('admin');
    await poll(async () => (await stored())?.role).toBe('admin');
    const missions = page.getByLabel(`Missions of ${u.username}`);
    await missions.fill('Alpha, Beta');
    await missions.press('Tab'); // the change is committed when the field is left
    await poll(async () => (await stored())?.missions).toEqual(['Alpha', 'Beta']);
    await keepScreenshot(page, 'configure-users');
    await page.getByRole('button', { name: `Remove ${u.username}` }).click();
    await poll(() => row.count()).toBe(0);
    expect(await stored()).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('adds, renames, moves and removes layers and saves the initial view', async () => {
    const mission = await newMission(page, uniqueName('web_tree'));
    const tree = page.getByRole('region', { name: 'Layers' });
    const done = (text: string) => tree.getByRole('status').filter({ hasText: text }).waitFor();
    type Layer = { name: string; sublayers?: Layer[] };
    const shape = (layers: Layer[]): unknown[] =>
      layers.map((l) => (l.sublayers ? { [l.name]: shape(l.sublayers) } : l.name));
    const stored = async () =>
      (await call('GET', `/api/configure/get?mission=${mission}`, { base: base() })).body;
    const add = async (name: string, type: string, url: string, under?: string) => {
      await tree.getByLabel('Layer name').fill(name);
      await tree.getByLabel('Layer type').selectOption(type);
      await tree.getByLabel('URL').fill(url);
      await tree.getByLabel('Under header').selectOption(under ?? '');
      await tree.getByRole('button', { name: 'Add layer' }).click();
      await done(`Layer ${name} added.`);
    };

    await add('Sites', 'header', '');
    await add('Craters', 'vector', 'geodatasets:web_tree_craters');
    await add('Vents', 'vectortile', 'geodatasets:web_tree_vents', 'Sites');
    expect(shape((await stored()).layers)).toEqual([{ Sites: ['Vents'] }, 'Craters']);

    const rename = tree.getByLabel('Name of layer Craters');
    await rename.fill('Big craters');
    await rename.press('Tab'); // committed when the field is left
    await done('Layer renamed.');
    await tree.getByRole('button', { name: 'Move Big craters up' }).click();
    await done('Layer moved.');
    expect(shape((await stored()).layers)).toEqual(['Big craters', { Sites: ['Vents'] }]);
    await poll(() => tree.getByRole('button', { name: 'Move Big craters up' }).isDisabled()).toBe(true);

    await tree.getByRole('button', { name: 'Remove layer Vents' }).click();
    await done('Layer Vents removed.');
    expect(shape((await stored()).layers)).toEqual(['Big craters', { Sites: [] }]);

    await tree.getByLabel('Latitude').fill('12.5');
    await tree.getByLabel('Longitude').fill('-45');
    await tree.getByLabel('Zoom').fill('6');
    await tree.getByRole('button', { name: 'Save view' }).click();
    await done('Initial view saved.');
    expect((await stored()).msv.view).toEqual([12.5, -45, 6]);
    await keepScreenshot(page, 'configure-layer-tree');
    expect(errors).toEqual([]);
  });

  it('recomputes the statistics of a legacy json dataset and converts it to jsonb', async () => {
    const name = uniqueName('web_legacy');
    const points = [2, 4, 9].map((v, i) => ({
      type: 'Feature' as const,
      properties: { v, label: `p${i}` },
      geometry: { type: 'Point' as const, coordinates: [i, i] },
    }));
    // A dataset as an older deployment left it: json properties, no statistics kept yet.
    await recreateGeodataset(
      getDb(),
      { type: 'FeatureCollection', features: points },
      { name },
      { propertiesType: 'json' },
    );
    await getDb().sql`update geodatasets set field_stats = null where name = ${name}`;
    const entry = async () =>
      (await call('GET', '/api/geodatasets/entries', { base: base() })).body.body.entries.find(
        (e: any) => e.name === name,
      );
    expect(await entry()).toMatchObject({ properties_type: 'json' });

    const row = page.getByRole('row').filter({ hasText: name }).first();
    const absent = row.getByText('No numeric fields.');
    const shown = row.getByRole('cell', { name: 'v', exact: true });
    // Other test files run the scheduled recompute of missing statistics (every dataset without them):
    // in one of three tries the page shows ours absent (else cleared again and the list loaded again).
    for (let i = 0; i < 3; i++) {
      if (i > 0) {
        await getDb().sql`update geodatasets set field_stats = null where name = ${name}`;
        await page.getByRole('link', { name: 'Missions' }).click();
        await page.getByRole('heading', { name: 'Missions', exact: true }).waitFor();
      }
      await page.getByRole('link', { name: 'GeoDatasets' }).click();
      await row.getByText('Field statistics').click();
      await absent.or(shown).first().waitFor();
      if (await absent.isVisible()) break;
    }
    expect(await absent.isVisible()).toBe(true);
    await row.getByRole('button', { name: 'Recompute statistics' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Statistics of ${name}: succeeded` })
      .waitFor({ timeout: 30_000 });
    const v = row.getByRole('row').filter({ has: page.getByRole('cell', { name: 'v', exact: true }) });
    await poll(() => v.count()).toBe(1);
    const cells = await v.getByRole('cell').allTextContents();
    expect([cells[1], cells[2], cells[5]]).toEqual(['2', '9', '3']);

    await row.getByRole('button', { name: 'Convert to jsonb' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Conversion of ${name}: succeeded` })
      .waitFor({ timeout: 30_000 });
    await poll(() => row.getByRole('button', { name: 'Convert to jsonb' }).count()).toBe(0);
    expect(await entry()).toMatchObject({ properties_type: 'jsonb', num_features: 3 });
    await keepScreenshot(page, 'configure-geodataset-jobs');
    expect(errors).toEqual([]);
  }, 120_000);
});
