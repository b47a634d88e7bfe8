/**
 * TIFF LZW (compression 5) with a bound on the output, for the raster decoding budget (budget.ts):
 * geotiff.js's own decoder collects its output in a growing JS array with no bound, so a crafted stream
 * of a few MB could grow it by gigabytes. Same reading as geotiff.js (MSB-first codes of 9 to 12 bits,
 * the code width grows one code early, Clear = 256, EOI = 257; a stream that runs out ends as at EOI), so
 * every file it reads decodes to the same bytes here; only past `maxBytes` does this one stop, throwing
 * `LzwTooLarge`.
 */
export class LzwTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`LZW output exceeds ${maxBytes} bytes`);
  }
}

const CLEAR = 256;
const EOI = 257;
const FIRST = 258;
const MAX_WIDTH = 12;
const NONE = 4096;

export function inflateLzw(input: Uint8Array, maxBytes: number): Uint8Array {
  const prefix = new Uint16Array(NONE);
  const last = new Uint8Array(NONE);
  const first = new Uint8Array(NONE);
  const length = new Uint32Array(NONE);
  for (let i = 0; i < 256; i++) {
    prefix[i] = NONE;
    last[i] = i;
    first[i] = i;
    length[i] = 1;
  }
  let size = FIRST;
  let width = 9;
  let bit = 0;
  let out = new Uint8Array(Math.min(maxBytes, Math.max(4096, input.length * 4)));
  let n = 0;

  const next = (): number => {
    const a = bit >>> 3;
    if (a >= input.length) return EOI;
    const window = (input[a] << 16) | ((input[a + 1] ?? 0) << 8) | (input[a + 2] ?? 0);
    const code = (window >>> (24 - (bit & 7) - width)) & ((1 << width) - 1);
    bit += width;
    return code;
  };
  const room = (k: number) => {
    if (n + k > maxBytes) throw new LzwTooLarge(maxBytes);
    if (n + k > out.length) {
      const grown = new Uint8Array(Math.min(maxBytes, Math.max(n + k, out.length * 2)));
      grown.set(out.subarray(0, n));
      out = grown;
    }
  };
  const emit = (code: number) => {
    const k = length[code];
    room(k);
    for (let i = n + k - 1, c = code; i >= n; i--, c = prefix[c]) out[i] = last[c];
    n += k;
  };
  const add = (code: number, char: number) => {
    if (size >= NONE) return;
    prefix[size] = code;
    last[size] = char;
    first[size] = first[code];
    length[size] = length[code] + 1;
    size++;
  };

  let old: number | undefined;
  let code = next();
  while (code !== EOI) {
    if (code === CLEAR) {
      size = FIRST;
      width = 9;
      code = next();
      while (code === CLEAR) code = next();
      if (code === EOI) break;
      if (code > CLEAR) throw new Error(`corrupted LZW code ${code} after a clear code`);
      emit(code);
      old = code;
    } else if (code < size) {
      emit(code);
      if (old !== undefined) add(old, first[code]);
      old = code;
    } else {
      if (old === undefined) throw new Error(`invalid LZW code ${code} with no previous code`);
      emit(old);
      room(1);
      out[n++] = first[old];
      add(old, first[old]);
      old = code;
    }
    if (size + 1 >= 1 << width) {
      if (width === MAX_WIDTH) old = undefined;
      else width++;
    }
    code = next();
  }
  return out.slice(0, n);
}
