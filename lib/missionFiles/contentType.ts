/** Content types by extension (lower case), as MMGIS's static server (express, `mime`) names them. */
const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  json: 'application/json; charset=utf-8',
  geojson: 'application/geo+json',
  csv: 'text/csv; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  xml: 'application/xml',
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  pbf: 'application/x-protobuf',
  mvt: 'application/vnd.mapbox-vector-tile',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  obj: 'model/obj',
  dae: 'model/vnd.collada+xml',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  wasm: 'application/wasm',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  map: 'application/json; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  mtl: 'text/plain; charset=utf-8',
  kml: 'application/vnd.google-earth.kml+xml',
};

/** The Content-Type of a mission file by its extension; `application/octet-stream` when unknown. */
export function contentTypeOf(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}
