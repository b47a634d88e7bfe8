import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageService } from '../fixtures/packageService.ts';

/**
 * A deployment must name its AUTH: with none, the first visitor could otherwise sign up before the
 * administrator did (docs/auth.md, docs/deploying.md). Packaging a deployed stage without AUTH fails,
 * naming the choices.
 */
describe('packaging without an explicit AUTH', () => {
  it('fails for a deployed stage, naming the choices', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sls-no-auth-'));
    try {
      const failed = await packageService(out, [], { CORS_ORIGINS: '' }, { templateOnly: true }).then(
        () => null,
        (e: { stdout?: string; stderr?: string; message: string }) =>
          `${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
      );
      expect(failed).not.toBeNull();
      expect(failed).toMatch(/AUTH is not set for stage 'dev'/);
      expect(failed).toMatch(/AUTH=local/);
      expect(failed).toMatch(/AUTH=none/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
