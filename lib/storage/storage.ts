import { open, readdir, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, NoSuchKey } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { notFound } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import { s3 } from '#lib/uploads/s3.ts';

/** What `stat` tells of a file: its size, when it last changed, and a validator that changes with it. */
export interface FileStat {
  size: number;
  modified: Date;
  /** A strong entity tag, quoted (`"…"`): the object's own on S3, size and modification time on disk. */
  etag: string;
}

/**
 * The mission data root: rasters, tilesets and every file of `/Missions/…` (docs/mission-site.md). Keys are
 * `/`-separated paths already checked by `missionKey` (no `..`, not absolute). A few operations only, so
 * an S3 bucket and a folder behave alike.
 */
export interface MissionStorage {
  /** The file's size, modification time and entity tag; 404 when it is missing or a folder. */
  stat(key: string): Promise<FileStat>;
  /** A time-limited URL the browser can fetch the file from itself (S3 only; undefined for a folder). */
  signedUrl?(key: string, seconds: number): Promise<string>;
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
    async stat(key) {
      const file = await inside(key);
      const st = await stat(file).catch(() => null);
      if (!st?.isFile()) throw missing(key);
      const modified = new Date(Math.floor(st.mtimeMs));
      return {
        size: st.size,
        modified,
        etag: `"${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}"`,
      };
    },
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
    async stat(key) {
      try {
        const res = await s3().send(new HeadObjectCommand({ Bucket: bucket, Key: full(key) }));
        return {
          size: res.ContentLength ?? 0,
          modified: res.LastModified ?? new Date(0),
          etag: res.ETag ?? `"${(res.ContentLength ?? 0).toString(36)}"`,
        };
      } catch (e) {
        const code = (e as { name?: string; $metadata?: { httpStatusCode?: number } }) ?? {};
        if (code.name === 'NotFound' || code.$metadata?.httpStatusCode === 404) throw missing(key);
        throw e;
      }
    },
    signedUrl(key, seconds) {
      return getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucket, Key: full(key) }), {
        expiresIn: seconds,
      });
    },
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
  const bucket = setting('MISSION_DATA_BUCKET');
  shared = bucket
    ? s3Storage(bucket, setting('MISSION_DATA_PREFIX'))
    : folderStorage(setting('MISSION_DATA_DIR'));
  return shared;
}
