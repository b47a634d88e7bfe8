// Turns a mission config's layers into MapLibre sources and style layers (docs/web.md, "Map viewer").
import type { LayerSpecification, Map as MapLibreMap, SourceSpecification } from 'maplibre-gl';
import { api, query } from '../api.ts';

/** The part of an MMGIS layer the viewer reads. */
export interface ConfigLayer {
  name: string;
  type: string;
  uuid?: string;
  url?: string;
  visibility?: boolean;
  sublayers?: ConfigLayer[];
  style?: { color?: string; fillColor?: string; fillOpacity?: number; weight?: number; radius?: number };
  time?: { enabled?: boolean };
  minZoom?: number;
  maxNativeZoom?: number;
}

export interface TimeWindow {
  start: string;
  end: string;
}

const GEODATASET = /^geodatasets:(.+)$/;

/** Every drawable (non-header) layer of the tree, in tree order. */
export function flatLayers(layers: ConfigLayer[]): ConfigLayer[] {
  return layers.flatMap((l) => (l.type === 'header' ? flatLayers(l.sublayers ?? []) : [l]));
}

export function hasTime(layer: ConfigLayer): boolean {
  return layer.time?.enabled === true;
}

/** A stable id for a layer's source and style layers. */
export function layerId(layer: ConfigLayer): string {
  return `l-${layer.uuid ?? layer.name}`;
}

/** The source of one layer, or null when the viewer cannot draw that type. */
async function sourceFor(layer: ConfigLayer, time: TimeWindow | null): Promise<SourceSpecification | null> {
  const url = layer.url ?? '';
  const ds = GEODATASET.exec(url)?.[1];
  const window: Record<string, string> =
    time && hasTime(layer) ? { starttime: time.start, endtime: time.end } : {};
  if (ds && layer.type === 'vectortile') {
    const tj = await api<{ tiles: string[]; minzoom: number; maxzoom: number; bounds?: number[] }>(
      'GET',
      `/api/geodatasets/tilejson/${encodeURIComponent(ds)}`,
    );
    const extra = new URLSearchParams(window).toString();
    const tiles = tj.tiles.map((t) => (extra ? `${t}&${extra}` : t));
    return { type: 'vector', tiles, minzoom: tj.minzoom, maxzoom: tj.maxzoom };
  }
  if (ds && layer.type === 'vector') {
    return {
      type: 'geojson',
      data: `/api/geodatasets/get${query({ layer: ds, type: 'geojson', ...window })}`,
    };
  }
  if (layer.type === 'vector' && url) return { type: 'geojson', data: url };
  if (layer.type === 'tile' && url) {
    return {
      type: 'raster',
      tiles: [url],
      tileSize: 256,
      minzoom: layer.minZoom ?? 0,
      maxzoom: layer.maxNativeZoom ?? 22,
    };
  }
  return null;
}

/** The style layers drawing one source: fills, lines and points for vectors, the raster for tiles. */
function styleLayers(layer: ConfigLayer, source: SourceSpecification): LayerSpecification[] {
  const id = layerId(layer);
  const visibility = layer.visibility === false ? 'none' : 'visible';
  if (source.type === 'raster') return [{ id, type: 'raster', source: id, layout: { visibility } }];
  const color = layer.style?.color ?? '#c2410c';
  const fill = layer.style?.fillColor ?? color;
  const sourceLayer =
    source.type === 'vector' ? { 'source-layer': GEODATASET.exec(layer.url ?? '')?.[1] } : {};
  const geom = (types: string[]) => ['in', ['geometry-type'], ['literal', types]] as never;
  return [
    {
      id: `${id}-fill`,
      type: 'fill',
      source: id,
      ...sourceLayer,
      filter: geom(['Polygon', 'MultiPolygon']),
      layout: { visibility },
      paint: { 'fill-color': fill, 'fill-opacity': layer.style?.fillOpacity ?? 0.45 },
    },
    {
      id: `${id}-line`,
      type: 'line',
      source: id,
      ...sourceLayer,
      filter: geom(['LineString', 'MultiLineString', 'Polygon', 'MultiPolygon']),
      layout: { visibility },
      paint: { 'line-color': color, 'line-width': layer.style?.weight ?? 2 },
    },
    {
      id: `${id}-point`,
      type: 'circle',
      source: id,
      ...sourceLayer,
      filter: geom(['Point', 'MultiPoint']),
      layout: { visibility },
      paint: {
        'circle-color': fill,
        'circle-radius': layer.style?.radius ?? 6,
        'circle-stroke-color': color,
        'circle-stroke-width': 1,
      },
    },
  ] as LayerSpecification[];
}

/** The style layer ids a config layer was drawn with (empty when it was not drawn). */
export function drawnIds(map: MapLibreMap, layer: ConfigLayer): string[] {
  const id = layerId(layer);
  return [id, `${id}-fill`, `${id}-line`, `${id}-point`].filter((l) => map.getLayer(l));
}

/** Removes every layer and source this module added. */
export function clearLayers(map: MapLibreMap): void {
  for (const l of map.getStyle().layers ?? []) if (l.id.startsWith('l-')) map.removeLayer(l.id);
  for (const s of Object.keys(map.getStyle().sources ?? {})) if (s.startsWith('l-')) map.removeSource(s);
}

/**
 * Adds (or replaces) one layer's source and style layers; answers false when its type cannot be drawn or
 * its source could not be read (the error is reported, the other layers go on).
 */
export async function addLayer(
  map: MapLibreMap,
  layer: ConfigLayer,
  time: TimeWindow | null,
): Promise<boolean> {
  const id = layerId(layer);
  let source: SourceSpecification | null;
  try {
    source = await sourceFor(layer, time);
  } catch (e) {
    console.warn(`Layer ${layer.name}: ${(e as Error).message}`);
    return false;
  }
  if (!source) return false;
  for (const l of drawnIds(map, layer)) map.removeLayer(l);
  if (map.getSource(id)) map.removeSource(id);
  map.addSource(id, source);
  for (const l of styleLayers(layer, source)) map.addLayer(l);
  return true;
}
