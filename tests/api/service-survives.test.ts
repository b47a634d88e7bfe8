import { describe, expect, inject, it } from 'vitest';
import { startService } from '../../local/devServer.ts';

/**
 * serverless-offline runs an async (`Event`) invocation without handling its failure: a job handler that
 * threw ended the whole local service (every later request: ECONNREFUSED). That killed the embedded
 * service during large uploads on a busy machine: the ingest job's connection wait timed out and the job
 * threw. Async handlers now log and answer their failure (lib/jobs/asyncHandler.ts).
 */
describe('the local service', () => {
  it('survives an async-invoked job that fails, in the same process', async () => {
    const svc = await startService({ databaseUrl: inject('databaseUrl'), env: { LOG_LEVEL: 'warn' } });
    try {
      const pid = svc.pid();
      const invoke = await fetch(
        `http://127.0.0.1:${svc.lambdaPort}/2015-03-31/functions/mmgis-dev-jobRecomputeStats/invocations`,
        {
          method: 'POST',
          headers: { 'X-Amz-Invocation-Type': 'Event', 'content-type': 'application/json' },
          // Not a job id: the job's first statement fails and the handler rejects.
          body: JSON.stringify({ jobId: 'not-a-uuid' }),
        },
      );
      expect(invoke.status).toBe(202);
      // The failure is printed once the job has run; wait for it rather than for a fixed time.
      const deadline = Date.now() + 30_000;
      while (!svc.logLines().some((l) => l.includes('not-a-uuid')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(svc.logLines().join('\n')).toMatch(/invalid input syntax for type uuid/);
      const health = await fetch(`${svc.url}/api/utils/healthcheck`);
      expect(health.status).toBe(200);
      expect(svc.pid()).toBe(pid);
      expect(svc.logLines().join('\n')).not.toMatch(/Uncaught exception/);
    } finally {
      await svc.stop();
    }
  }, 120_000);
});
