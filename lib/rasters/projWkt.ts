import { badRequest } from '#lib/errors.ts';

/**
 * PROJ string → OGC WKT for `GET /api/utils/proj42wkt` (docs/utils.md): the established server ran GDAL's
 * `osr` (`ImportFromProj4`, `ExportToWkt`); this runs the same GDAL, compiled to WebAssembly (the
 * `gdal3.js` package), so the text is the one that server wrote. The module (about 40 MB with PROJ's
 * database) is loaded on first use only and kept for the instance's life; only this endpoint's function
 * packages it.
 */

/** The part of the GDAL WebAssembly module (Emscripten) this uses. */
interface GdalModule {
  cwrap(name: string, ret: string | null, args: string[]): (...a: unknown[]) => number;
  _malloc(n: number): number;
  _free(p: number): void;
  getValue(p: number, type: string): number;
  UTF8ToString(p: number): string;
}

interface Osr {
  create(): number;
  fromUserInput(h: number, text: string): number;
  toWkt(h: number, out: number): number;
  destroy(h: number): void;
  module: GdalModule;
}

let osr: Promise<Osr> | undefined;

async function loadOsr(): Promise<Osr> {
  // A runtime import of the package left outside the bundle (scripts/build.mjs): it finds its .wasm
  // and data files beside itself.
  const { default: init } = await import('gdal3.js/node.js');
  const m = (await init()).Module as GdalModule;
  return {
    create: () => m.cwrap('OSRNewSpatialReference', 'number', ['string'])(null),
    fromUserInput: (h, text) => m.cwrap('OSRSetFromUserInput', 'number', ['number', 'string'])(h, text),
    toWkt: (h, out) => m.cwrap('OSRExportToWkt', 'number', ['number', 'number'])(h, out),
    destroy: (h) => {
      m.cwrap('OSRDestroySpatialReference', null, ['number'])(h);
    },
    module: m,
  };
}

const MAX_PROJ = 2000;
/** `+name` or `+name=value` tokens: a PROJ string, nothing GDAL would read as a file name or URL. */
const PROJ_TOKENS = /^\s*(\+[A-Za-z_][A-Za-z0-9_]*(=[^\s+]*)?\s*)+$/;

/** The PROJ string of the query, checked: 400 naming `proj4` when missing or not a PROJ string. */
export function assertProjString(raw: unknown): string {
  // jQuery writes a space as `+` in the query (`%2Bproj%3Deqc+%2Bno_defs`): where a gateway hands the
  // query over without turning those back into spaces, `++` is a space before the next parameter.
  const value = typeof raw === 'string' ? raw.replace(/\+(?=\+)/g, ' ') : raw;
  if (typeof value !== 'string' || value.trim() === '') {
    throw badRequest(
      "Missing required query parameter 'proj4' (a PROJ string such as '+proj=longlat +datum=WGS84').",
    );
  }
  if (value.length > MAX_PROJ) throw badRequest(`'proj4' is longer than ${MAX_PROJ} characters.`);
  if (!PROJ_TOKENS.test(value) || /(^|\s)\+init=/.test(value)) {
    throw badRequest("'proj4' must be a PROJ string of '+name=value' parameters (no '+init' files).");
  }
  return value.trim();
}

/** The WKT of a PROJ string (as GDAL's `ExportToWkt` writes it); 400 when PROJ refuses the string. */
export async function projToWkt(proj: string): Promise<string> {
  osr ??= loadOsr();
  const o = await osr;
  const m = o.module;
  const h = o.create();
  try {
    if (o.fromUserInput(h, proj) !== 0) {
      throw badRequest(
        `'proj4' is not a PROJ string PROJ understands: ${JSON.stringify(proj.slice(0, 200))}.`,
      );
    }
    const out = m._malloc(4);
    try {
      if (o.toWkt(h, out) !== 0) throw badRequest("'proj4' has no WKT form.");
      const p = m.getValue(out, 'i32');
      const wkt = m.UTF8ToString(p);
      m._free(p);
      return wkt;
    } finally {
      m._free(out);
    }
  } finally {
    o.destroy(h);
  }
}
