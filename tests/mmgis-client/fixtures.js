// The seed data the flows rely on (used by seed.js and flows.js).
'use strict';
const ADMIN = { username: 'harness_admin', password: 'harness-admin-pw1' }; // pragma: allowlist secret
const MISSION = 'Harness';
const TOKEN_NAME = 'harness-token';
const pt = (lon, lat, properties) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties });
const box = (w, s, e, n, properties) => ({ type: 'Feature', properties,
  geometry: { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } });
const POINTS = [
  pt(0.30, 0.70, { name: 'Alpha', sol: 101, note: 'harness-note-alpha' }),
  pt(0.70, 0.70, { name: 'Beta', sol: 102, note: 'harness-note-beta' }),
  pt(0.30, 0.30, { name: 'Gamma', sol: 103, note: 'harness-note-gamma' }),
  pt(0.70, 0.30, { name: 'Delta', sol: 104, note: 'harness-note-delta' }),
];
const POLYS = [
  box(-0.9, -0.9, -0.1, -0.1, { name: 'TileSquare', zone: 'harness-zone-sw' }),
  box(1.1, 1.1, 1.9, 1.9, { name: 'TileSquare2', zone: 'harness-zone-ne' }),
];
const GEODATASETS = [
  { name: 'harness_points', features: POINTS },
  { name: 'harness_polys', features: POLYS },
];
const DATASET = { name: 'harness_ds', rows: [
  { sol: '101', detail: 'harness-dataset-row-101' }, { sol: '102', detail: 'harness-dataset-row-102' } ] };

function config() {
  return {
    msv: { mission: MISSION, site: '', masterdb: false, view: ['0.5', '0.5', '8'],
      radius: { major: '6378137', minor: '6378137' }, mapscale: '' },
    projection: { custom: false, epsg: '', proj: '', globeproj: 'webmercator', xmlpath: '', bounds: ['', '', '', ''],
      origin: ['', ''], reszoomlevel: '', resunitsperpixel: '' },
    look: { pagename: 'MMGIS', minimalist: false, topbar: true, toolbar: true, scalebar: true, coordinates: true,
      zoomcontrol: false, graticule: false, miscellaneous: true, bodycolor: '', topbarcolor: '', toolbarcolor: '',
      mapcolor: '', swap: false, copylink: true, screenshot: true, fullscreen: true, help: true, logourl: '', helpurl: '' },
    panels: ['viewer', 'map', 'globe'],
    time: { enabled: false },
    tools: [
      { name: 'Layers', icon: 'buffer', js: 'LayersTool' },
      { name: 'Info', icon: 'information-variant', js: 'InfoTool' },
      { name: 'Draw', icon: 'lead-pencil', js: 'DrawTool', variables: {} },
      { name: 'Measure', icon: 'chart-areaspline', js: 'MeasureTool', variables: { dem: 'Data/dem.tif' } },
    ],
    layers: [
      { name: 'Harness Layers', type: 'header', initialOpacity: 1, sublayers: [
        { name: 'HarnessPoints', kind: 'none', type: 'vector', url: 'geodatasets:harness_points', visibility: true, shape: 'none',
          initialOpacity: 1, togglesWithHeader: true,
          style: { className: 'harnesspoints', color: '#ffffff', fillColor: '#ff0000', weight: 2, fillOpacity: 1, opacity: 1 },
          variables: { datasetLinks: [{ prop: 'sol', dataset: DATASET.name, column: 'sol', type: 'none' }] }, radius: 10 },
        { name: 'HarnessTiles', kind: 'none', type: 'vectortile', url: 'geodatasets:harness_polys', visibility: true,
          initialOpacity: 1, togglesWithHeader: true, minZoom: 0, maxNativeZoom: 18, maxZoom: 22,
          style: { className: 'harnesstiles', color: '#00ff00', fillColor: '#00ff00', weight: 2, fillOpacity: 0.5, opacity: 1, vtLayer: { harness_polys: { fill: true, fillColor: '#00ff00', fillOpacity: 0.5, color: '#00ff00', weight: 2, opacity: 1 } } },
          variables: {} },
      ] },
    ],
  };
}
// A webhook the Webhooks page shows and edits (its host never resolves: nothing is called).
const WEBHOOK = { action: 'DrawFileAdd', type: 'POST', url: 'https://hooks.harness.invalid/mmgis/{file_id}',
  header: '{"Content-Type": "application/json"}', body: '{"id": "{file_id}", "name": "{file_name}"}' };
// The feature the live-update flow appends to harness_points through the configure app.
const LIVE_POINT = pt(0.5, 0.5, { name: 'Epsilon', sol: 105, note: 'harness-note-epsilon' });
module.exports = { ADMIN, MISSION, TOKEN_NAME, POINTS, POLYS, GEODATASETS, DATASET, WEBHOOK, LIVE_POINT, config };
