import pug from 'pug';
import { HttpError } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { s3Storage } from '#lib/storage/storage.ts';
import { BUCKET_KEYS, type MmgisBuild, PAGE_TEMPLATES, type PageTemplate } from './build.ts';

/** A template or package.json larger than this is refused (MMGIS 3.0.0's largest page is about 10 KB). */
const MAX_BYTES = 1024 * 1024;
/** After a failed read, the next request within this long answers as without a build, without asking S3. */
const RETRY_MS = 60_000;

interface Attempt {
  bucket: string;
  at: number;
  build: Promise<MmgisBuild | undefined>;
  failed?: boolean;
}
let attempt: Attempt | undefined;

/**
 * The MMGIS build whose page templates are in `bucket` at the keys of `BUCKET_KEYS` (deployed: the site
 * bucket the operator synced the build to; docs/mission-site.md, "Deployed"). Read and compiled once per
 * function instance. When a page is missing or unreadable: undefined, one log line naming the keys, and
 * another try after a minute (a build synced after the deploy is served without one).
 */
export function bucketBuild(bucket: string): Promise<MmgisBuild | undefined> {
  const now = Date.now();
  if (attempt?.bucket === bucket && !(attempt.failed && now - attempt.at >= RETRY_MS)) return attempt.build;
  const a: Attempt = { bucket, at: now, build: Promise.resolve(undefined) };
  a.build = load(bucket).then((build) => {
    a.failed = build === undefined;
    return build;
  });
  attempt = a;
  return a.build;
}

/** Forgets what was read (tests). */
export function forgetBucketBuild(): void {
  attempt = undefined;
}

async function load(bucket: string): Promise<MmgisBuild | undefined> {
  const storage = s3Storage(bucket, '');
  const texts = await Promise.all(
    BUCKET_KEYS.map(async (key): Promise<{ text?: string; problem?: string }> => {
      try {
        const bytes = await storage.readRange(key, 0, MAX_BYTES + 1);
        if (bytes.length > MAX_BYTES) return { problem: 'larger than 1 MiB' };
        return { text: Buffer.from(bytes).toString('utf8') };
      } catch (e) {
        // Without s3:ListBucket (the role has none) S3 answers a missing key with AccessDenied.
        if (e instanceof HttpError && e.statusCode === 404) return { problem: 'NoSuchKey' };
        return { problem: String((e as Error)?.name ?? e) };
      }
    }),
  );
  const pages = new Map<PageTemplate, pug.compileTemplate>();
  const problems: Record<string, string> = {};
  PAGE_TEMPLATES.forEach((key, i) => {
    const { text, problem } = texts[i];
    if (text === undefined) {
      problems[key] = problem ?? 'unreadable';
      return;
    }
    try {
      pages.set(key, pug.compile(text, { filename: key }));
    } catch (e) {
      problems[key] = `not a page pug compiles: ${(e as Error).message.split('\n')[0]}`;
    }
  });
  if (Object.keys(problems).length > 0) {
    log('warn', 'no MMGIS pages in MMGIS_CLIENT_BUCKET: our own viewer answers at /', { bucket, problems });
    return undefined;
  }
  return {
    version: versionOf(texts[BUCKET_KEYS.indexOf('package.json')].text),
    render: (page, variables) => (pages.get(page) as pug.compileTemplate)(variables),
  };
}

function versionOf(packageJson: string | undefined): string {
  try {
    return String(JSON.parse(packageJson ?? '{}').version ?? '');
  } catch {
    return '';
  }
}
