// gdal3.js's Node entry (GDAL compiled to WebAssembly); lib/rasters/projWkt.ts types the part it uses.
declare module 'gdal3.js/node.js' {
  const init: (options?: object) => Promise<{ Module: unknown }>;
  export default init;
}
