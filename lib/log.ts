/** One structured JSON log line (CloudWatch-friendly); `requestId` ties lines of one request together. */
export function log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> = {}) {
  if (process.env.LOG_LEVEL === 'silent') return;
  if (level === 'info' && process.env.LOG_LEVEL === 'warn') return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}
