// The notice shown while a thinned vector tile is on screen (docs/tiles.md, "Thinning"): a tile over the
// feature cap leaves out features whose pixel no kept feature covers, and marks its features `_thinned`.
import type { Map as MapLibreMap } from 'maplibre-gl';

/** The attribute a thinned tile's features carry (lib/geodatasets/tiles/tileSql.ts, THINNED_ATTRIBUTE). */
const THINNED = '_thinned';

/**
 * Adds a small status notice over the map and keeps it in step with what is drawn: shown while any
 * rendered feature of our layers comes from a thinned tile, hidden otherwise (checked when the map is idle).
 */
export function watchThinnedTiles(map: MapLibreMap, container: HTMLElement): HTMLElement {
  const notice = document.createElement('p');
  notice.id = 'thinned';
  notice.className = 'map-notice';
  notice.setAttribute('role', 'status');
  notice.hidden = true;
  notice.textContent = 'Not every feature is shown here: zoom in to see them all.';
  container.append(notice);
  map.on('idle', () => {
    const ours = (map.getStyle().layers ?? []).filter((l) => l.id.startsWith('l-')).map((l) => l.id);
    const thinned =
      ours.length > 0 &&
      map.queryRenderedFeatures({ layers: ours, filter: ['==', ['get', THINNED], true] }).length > 0;
    if (notice.hidden === thinned) notice.hidden = !thinned;
  });
  return notice;
}
