import { open, readdir, realpath } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey } from '@aws-sdk/client-s3';
import { notFound } from '#lib/errors.ts';
import { envText } from '#lib/settings.ts';
import { s3 } from '#lib/uploads/s3.ts';

/**
 * The mission data root: rasters and tilesets. Keys are `/`-separated paths already checked by
 * `missionKey` (no `..`, not absolute). Two operations only, so an S3 bucket and a folder behave alike.
 */
export interface MissionStorage {
  /** Up to `length` bytes from `offset` (fewer at the end of the file); 404 when the file is missing. */
  readRange(key: string, offset: number, length: number): Promise<Uint8Array>;
  /** The names of the folders directly below `prefix` (a folder key, '' for the root); 404 when none. */
  listFolders(prefix: string): Promise<string[]>;
  /** What the root is, for messages and logs. */
  describe(): string;
}

const missing = (key: string) => notFound(`'${key}' was not found in the mission data.`);

/** A folder on disk (`MISSION_DATA_DIR`, default `.data/missions`); symlinks leaving it are refused. */
export function folderStorage(dir: string): MissionStorage {
  const root = resolve(dir);
  let realRoot: Promise<string> | undefined;
  const inside = async (key: string): Promise<string> => {
    realRoot ??= realpath(root).catch(() => root);
    const full = resolve(root, key);
    let real: string;
    try {
      real = await realpath(full);
    } catch {
      throw missing(key);
    }
    const base = await realRoot;
    if (real !== base && !real.startsWith(base + sep)) throw missing(key);
    return real;
  };
  return {
    describe: () => `folder ${root}`,
    async readRange(key, offset, length) {
      const file = await inside(key);
      let fh: Awaited<ReturnType<typeof open>>;
      try {
        fh = await open(file, 'r');
      } catch {
        throw missing(key);
      }
      try {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset);
        return new Uint8Array(buf.buffer, buf.byteOffset, bytesRead);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EISDIR') throw missing(key);
        throw e;
      } finally {
        await fh.close();
      }
    },
    async listFolders(prefix) {
      const dirPath = await inside(prefix);
      try {
        const entries = await readdir(dirPath, { withFileTypes: true });
        return entries.filter((e) => e.isDirectory()).map((e) => e.name);
      } catch {
        throw missing(prefix);
      }
    },
  };
}

/** An S3 bucket and prefix (`MISSION_DATA_BUCKET`, `MISSION_DATA_PREFIX`), read with ranged GETs. */
export function s3Storage(bucket: string, prefix: string): MissionStorage {
  const base = prefix.replace(/^\/+|\/+$/g, '');
  const full = (key: string) => (base ? (key ? `${base}/${key}` : base) : key);
  return {
    describe: () => `s3://${bucket}/${base}`,
    async readRange(key, offset, length) {
      if (length <= 0) return new Uint8Array(0);
      try {
        const res = await s3().send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: full(key),
            Range: `bytes=${offset}-${offset + length - 1}`,
          }),
        );
        return await res.Body!.transformToByteArray();
      } catch (e) {
        const code = (e as { name?: string; $metadata?: { httpStatusCode?: number } }) ?? {};
        if (e instanceof NoSuchKey || code.name === 'NoSuchKey' || code.$metadata?.httpStatusCode === 404) {
          throw missing(key);
        }
        // A range starting past the end of the object.
        if (code.name === 'InvalidRange' || code.$metadata?.httpStatusCode === 416) return new Uint8Array(0);
        throw e;
      }
    },
    async listFolders(prefix) {
      const p = full(prefix);
      const listPrefix = p ? `${p}/` : '';
      const names: string[] = [];
      let token: string | undefined;
      let any = false;
      for (let page = 0; page < 20; page++) {
        const res = await s3().send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: listPrefix,
            Delimiter: '/',
            ContinuationToken: token,
          }),
        );
        any ||= (res.KeyCount ?? 0) > 0;
        for (const cp of res.CommonPrefixes ?? []) {
          const name = cp.Prefix!.slice(listPrefix.length).replace(/\/$/, '');
          if (name) names.push(name);
        }
        if (!res.IsTruncated) break;
        token = res.NextContinuationToken;
      }
      if (!any) throw missing(prefix);
      return names;
    },
  };
}

let shared: MissionStorage | undefined;

/** S3 when `MISSION_DATA_BUCKET` is set, else the folder `MISSION_DATA_DIR` (default `.data/missions`). */
export function missionStorage(): MissionStorage {
  if (shared) return shared;
  const bucket = envText('MISSION_DATA_BUCKET');
  shared = bucket
    ? s3Storage(bucket, envText('MISSION_DATA_PREFIX') ?? '')
    : folderStorage(envText('MISSION_DATA_DIR') ?? '.data/missions');
  return shared;
}
