import type { Config } from './layerTree.ts';

/**
 * The configuration `/add` stores when no config is given: a minimal valid map (the mission name, a whole
 * world view, no layers) with the usual tools switched on. Written for this service, not copied from any
 * mission's data.
 */
export function templateConfig(mission: string): Config {
  return {
    msv: {
      mission,
      site: '',
      masterdb: false,
      view: [0, 0, 3],
      radius: { major: 6378137, minor: 6378137 },
      mapscale: '',
    },
    // The established template's projection block: the configure app reads `bounds` and `origin` of
    // every mission (empty values: the default Web Mercator map, no custom projection).
    projection: {
      custom: false,
      epsg: '',
      proj: '',
      globeproj: 'webmercator',
      xmlpath: '',
      bounds: ['', '', '', ''],
      origin: ['', ''],
      reszoomlevel: '',
      resunitsperpixel: '',
    },
    look: {
      pagename: mission,
      minimalist: false,
      topbar: true,
      toolbar: true,
      scalebar: true,
      coordinates: true,
      zoomcontrol: true,
      graticule: false,
      miscellaneous: true,
    },
    panels: ['viewer', 'map', 'globe'],
    time: { enabled: false },
    tools: [
      { name: 'Layers', icon: 'buffer', js: 'LayersTool' },
      { name: 'Legend', icon: 'format-list-bulleted-type', js: 'LegendTool' },
      { name: 'Info', icon: 'information-variant', js: 'InfoTool' },
      { name: 'Measure', icon: 'chart-areaspline', js: 'MeasureTool' },
    ],
    layers: [],
  };
}
