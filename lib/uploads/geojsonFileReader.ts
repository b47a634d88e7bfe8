import { StringDecoder } from 'node:string_decoder';
import { JobInputError } from '#lib/jobs/inputError.ts';

/**
 * A streaming reader of a GeoJSON file's `features[*]`: it follows the JSON structure chunk by chunk
 * (strings, nesting, the top-level members) and hands each feature's own text to `JSON.parse`, so memory
 * stays at one chunk plus one feature however large the file. Everything outside the features (the
 * "skeleton": `{"type":"FeatureCollection","features":[],...}`) is kept and parsed at the end, which checks
 * the top-level syntax and `type`. A single-Feature file is its own skeleton (held in memory whole).
 *
 * Why not stream-json: on the 200,000-point file (41 MB) its parser + `pick` + `streamArray` took 8-10 times
 * as long as `JSON.parse` of the same text (docs/uploads.md); this reader stays close to `JSON.parse`.
 *
 * It is the upload job's reader: its errors are `JobInputError`s naming the feature index and the byte
 * offset in the file.
 */
export interface GeojsonFileReaderOptions {
  /** More bytes than this: an error (the upload limit, for files whose size was not declared). */
  maxBytes?: number;
  /** Called after each chunk with the features handed out and the bytes read so far. */
  onProgress?: (features: number, bytes: number) => void;
}

export class GeojsonFileReader implements AsyncIterable<unknown> {
  /** Features handed out so far. */
  count = 0;
  /** Bytes of the file read so far. */
  bytesRead = 0;
  /** Byte offsets of the most recent features (index % RING), for error messages about a feature. */
  private readonly starts = new Float64Array(RING);

  constructor(
    private readonly chunks: AsyncIterable<Uint8Array | string>,
    private readonly options: GeojsonFileReaderOptions = {},
  ) {}

  /** The byte offset where feature `index` starts, if it is one of the recent ones. */
  byteOffsetOf(index: number): number | undefined {
    if (index < 0 || index >= this.count || this.count - index > RING) return undefined;
    return this.starts[index % RING];
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    const decoder = new StringDecoder('utf8');
    let buf = '';
    /** Bytes of the file before `buf[0]`. */
    let base = 0;
    let depth = 0;
    let inString = false;
    let escaped = false;
    /** At depth 1 and the next string is a member name. */
    let expectKey = false;
    let keyFrom = -1;
    let keyText = '';
    let lastKey = '';
    let inFeatures = false;
    let elemFrom = -1;
    let skelFrom = 0;
    let skeleton = '';
    let seenFeatures = false;
    let started = false;
    const self = this;

    // Byte offsets are measured incrementally (feature starts only move forward within `buf`).
    let mChars = 0;
    let mBytes = 0;
    const byteAt = (i: number) => {
      if (i < mChars) return base + Buffer.byteLength(buf.slice(0, i));
      mBytes += Buffer.byteLength(buf.slice(mChars, i));
      mChars = i;
      return base + mBytes;
    };
    function parseElement(end: number): unknown {
      const text = buf.slice(elemFrom, end);
      const index = self.count;
      const at = byteAt(elemFrom);
      self.starts[index % RING] = at;
      elemFrom = -1;
      try {
        const feature = JSON.parse(text);
        self.count++; // before the consumer sees it: its errors can ask for byteOffsetOf(index)
        return feature;
      } catch (e) {
        throw new JobInputError(
          `Feature ${index} (at byte ${at}): not valid JSON (${(e as Error).message}).`,
          {
            featureIndex: index,
            byteOffset: at,
          },
        );
      }
    }

    for await (const chunk of this.chunks) {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
      this.options.onProgress?.(this.count, this.bytesRead);
      this.bytesRead += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      const max = this.options.maxBytes;
      if (max !== undefined && this.bytesRead > max) {
        throw new JobInputError(`The file is larger than the upload limit of ${max} bytes.`);
      }
      // Keep only what is still needed: the feature being read and the member name being read.
      let keep = buf.length;
      if (elemFrom >= 0) keep = elemFrom;
      if (skelFrom >= 0 && skelFrom < buf.length) skeleton += buf.slice(skelFrom, keep);
      if (keyFrom >= 0) keyText += buf.slice(keyFrom, keep);
      const dropped = buf.slice(0, keep);
      base += Buffer.byteLength(dropped);
      const carried = buf.length - keep;
      buf = buf.slice(keep) + text;
      if (elemFrom >= 0) elemFrom = 0;
      if (skelFrom >= 0) skelFrom = 0;
      if (keyFrom >= 0) keyFrom = 0;
      mChars = 0;
      mBytes = 0;
      if (!started && buf.length) {
        if (buf.charCodeAt(0) === 0xfeff) {
          buf = buf.slice(1);
          base += 3;
        }
        started = true;
      }

      const n = buf.length;
      // The carried part was scanned already.
      let i = carried;
      /** The next backslash at or after `i` (n: none), found once per stretch: strings rarely hold one. */
      let bs = -1;
      while (i < n) {
        if (inString) {
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          const q = buf.indexOf('"', i);
          if (bs < i) {
            bs = buf.indexOf('\\', i);
            if (bs < 0) bs = n;
          }
          const b = bs;
          if (b < n && (q < 0 || b < q)) {
            if (b + 1 >= n) {
              escaped = true;
              i = n;
            } else i = b + 2;
            continue;
          }
          if (q < 0) {
            i = n;
            continue;
          }
          inString = false;
          i = q + 1;
          if (keyFrom >= 0) {
            lastKey = parseKey(keyText + buf.slice(keyFrom, i), byteAt(keyFrom));
            keyFrom = -1;
            keyText = '';
          }
          continue;
        }
        const c = buf.charCodeAt(i);
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          i++;
          continue;
        }
        if (inFeatures && depth === 2) {
          // Between or at the start of features, or at the end of a scalar one.
          if (c === 0x2c || c === 0x5d) {
            if (elemFrom >= 0) {
              yield parseElement(i);
            }
            if (c === 0x5d) {
              inFeatures = false;
              depth = 1;
              skelFrom = i;
            }
            i++;
            continue;
          }
          if (elemFrom < 0) elemFrom = i;
        }
        if (c === 0x22) {
          inString = true;
          if (depth === 1 && expectKey) {
            keyFrom = i;
            expectKey = false;
          }
          i++;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          if (depth === 0 && c !== 0x7b) {
            throw new JobInputError(
              'The file must hold a GeoJSON FeatureCollection object (it starts with [).',
            );
          }
          depth++;
          if (depth === 1) expectKey = true;
          else if (depth === 2 && lastKey === 'features' && !seenFeatures) {
            if (c !== 0x5b) throw new JobInputError('geojson.features must be an array of GeoJSON Features.');
            seenFeatures = true;
            inFeatures = true;
            skeleton += buf.slice(skelFrom, i + 1);
            skelFrom = -1;
          }
          i++;
          continue;
        }
        if (c === 0x7d || c === 0x5d) {
          depth--;
          i++;
          if (inFeatures && depth === 2 && elemFrom >= 0) {
            yield parseElement(i);
          }
          if (depth < 0)
            throw new JobInputError(
              `The file is not valid JSON: unexpected '${buf[i - 1]}' at byte ${byteAt(i - 1)}.`,
            );
          continue;
        }
        if (c === 0x2c && depth === 1) expectKey = true;
        else if (depth === 0) {
          throw new JobInputError(
            `The file must hold a GeoJSON FeatureCollection object (byte ${byteAt(i)}).`,
          );
        }
        i++;
      }
    }
    const tail = decoder.end();
    if (tail) buf += tail;
    if (elemFrom >= 0 || inFeatures) {
      throw new JobInputError(
        `The file ends inside feature ${this.count} (after byte ${base + Buffer.byteLength(buf)}): it is truncated.`,
        { featureIndex: this.count },
      );
    }
    if (skelFrom >= 0) skeleton += buf.slice(skelFrom);
    if (!skeleton.trim()) throw new JobInputError('The uploaded file is empty.');
    let top: any;
    try {
      top = JSON.parse(skeleton);
    } catch (e) {
      throw new JobInputError(`The file is not valid JSON outside its features: ${(e as Error).message}.`);
    }
    if (top === null || typeof top !== 'object' || Array.isArray(top)) {
      throw new JobInputError('The file must hold a GeoJSON FeatureCollection or Feature object.');
    }
    if (top.type === 'Feature' && !seenFeatures) {
      this.starts[0] = 0;
      this.count = 1;
      yield top;
      return;
    }
    if (top.type !== 'FeatureCollection') {
      throw new JobInputError(
        `geojson must be a FeatureCollection or a Feature (got type ${JSON.stringify(top.type)}).`,
      );
    }
    if (!seenFeatures) throw new JobInputError('geojson.features must be an array of GeoJSON Features.');
  }
}

const RING = 16384;

function parseKey(text: string, at: number): string {
  try {
    return JSON.parse(text);
  } catch {
    throw new JobInputError(`The file is not valid JSON: a malformed member name at byte ${at}.`);
  }
}
