import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, apiUrlLocal, call, uniqueName } from '../helpers.ts';
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
    await page.getByLabel('Expire After').selectOption({ label: '1 day' });
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
    const mission = uniqueName('web_cfg');
    await page.getByRole('link', { name: 'Missions' }).click();
    await page.getByLabel('Mission name').fill(mission);
    await page.getByRole('button', { name: 'New mission' }).click();
    await page.getByRole('heading', { name: new RegExp(`^${mission}`) }).waitFor();
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
});
