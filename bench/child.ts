import { spawn } from 'node:child_process';

/**
 * Runs `script --child ...args` in a fresh Node process (so its peak RSS is its own) and resolves with
 * the JSON object on the last line of its stdout. The benches measure each handler call this way.
 */
export function runChild<T>(
  script: string,
  args: string[],
  env: Record<string, string>,
  label: string,
): Promise<T> {
  return new Promise((ok, fail) => {
    const p = spawn(process.execPath, [script, '--child', ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('exit', (code) => {
      try {
        ok(JSON.parse(out.trim().split('\n').pop() ?? '') as T);
      } catch {
        fail(new Error(`child ${label} exited ${code}: ${out.slice(-500)}`));
      }
    });
  });
}
