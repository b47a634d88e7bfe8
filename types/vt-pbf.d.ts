// The part of vt-pbf@3 the service uses: encoding geojson-vt-shaped features into an MVT protobuf.
declare module 'vt-pbf' {
  /** A feature in tile pixels: type 1 point (geometry = points), 2 line, 3 polygon (geometry = rings). */
  export interface VtFeature {
    id?: number;
    type: 1 | 2 | 3;
    geometry: number[][] | number[][][];
    tags: Record<string, string | number | boolean | null>;
  }
  export interface VtLayer {
    features: VtFeature[];
  }
  export function fromGeojsonVt(
    layers: Record<string, VtLayer>,
    options?: { version?: number; extent?: number },
  ): Uint8Array;
  const vtpbf: { fromGeojsonVt: typeof fromGeojsonVt };
  export default vtpbf;
}
