// Real Chromium for the page tests (docs/web.md, "Tests"): Debian's chromium driven by playwright-core.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a headless run without network side traffic; WebGL through SwiftShader (no GPU). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install the chromium package.`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A page that records every console error and uncaught exception into `errors`. */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} @ ${m.location().url}`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return { page, errors };
}

/** Keeps a screenshot as a test artifact: test-artifacts/web/<name>-<embedded|server>.png. */
export async function keepScreenshot(page: Page, name: string): Promise<string> {
  const dir = join(process.cwd(), 'test-artifacts', 'web');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${inject('embedded') ? 'embedded' : 'server'}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Counts the pixels of a PNG that differ from `background` (r, g, b) by more than a small tolerance; the
 * PNG is decoded by the browser itself in a blank page.
 */
export async function countInk(browser: Browser, png: Buffer, background: [number, number, number]) {
  const page = await browser.newPage();
  try {
    const fn = `async ([b64, bg]) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 24) n++;
      }
      return n;
    }`;
    return (await page.evaluate(
      `(${fn})(${JSON.stringify([png.toString('base64'), background])})`,
    )) as number;
  } finally {
    await page.close();
  }
}

/** `expect.poll` with a timeout that suits a loaded machine and the embedded database. */
export function poll<T>(fn: () => T | Promise<T>, opts: { timeout?: number } = {}) {
  return expect.poll(fn, { timeout: 20_000, ...opts });
}
