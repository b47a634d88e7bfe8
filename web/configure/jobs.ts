import { api } from '../api.ts';

export interface Job {
  id: string;
  state: string;
  processed?: number;
  total?: number | null;
  error?: string | null;
}

/** Polls a job until it ends (`succeeded` or `failed`), reporting each state seen. */
export async function waitForJob(
  id: string,
  onState: (j: Job) => void,
  timeoutMs = 15 * 60_000,
): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api<{ body: { job: Job } }>('GET', `/api/geodatasets/jobs/${id}`);
    onState(body.job);
    if (body.job.state === 'succeeded' || body.job.state === 'failed') return body.job;
    if (Date.now() > deadline) throw new Error(`Job ${id} is still ${body.job.state}.`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** PUTs a file to a presigned URL with progress (fetch has no upload progress; XMLHttpRequest has). */
export function putWithProgress(
  url: string,
  headers: Record<string, string>,
  file: Blob,
  onProgress: (fraction: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [k, v] of Object.entries(headers)) {
      if (k.toLowerCase() !== 'content-length' && k.toLowerCase() !== 'host') xhr.setRequestHeader(k, v);
    }
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300)
        return reject(new Error(`The upload was refused (${xhr.status}).`));
      onProgress(1);
      resolve();
    };
    xhr.onerror = () => reject(new Error('The upload failed (network error).'));
    xhr.send(file);
  });
}
