declare module '@mapbox/geojson-rewind' {
  /** Rewinds polygon rings in place: `outer` false (default) gives RFC 7946's counterclockwise exteriors. */
  export default function rewind<T>(gj: T, outer?: boolean): T;
}
