// What the tests that drive the MMGIS 3.0.0 client in Chromium share (draw-flows.test.ts,
// mission-site.test.ts): the operator's build, and a mission configuration as MMGIS's configure app saves it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The build (MISSION_SITE_TEST_CLIENT, set by .ci/run when ../shared holds it), or '' when absent. */
export const CLIENT = process.env.MISSION_SITE_TEST_CLIENT ?? '';
export const HAS_BUILD = CLIENT !== '' && existsSync(join(CLIENT, 'build', 'index.pug'));

/** A mission's configuration, MMGIS's defaults with the view's zoom, its tools and its layers. */
export function missionConfigOf(mission: string, zoom: string, tools: object[], layers: object[] = []) {
  return {
    msv: { mission, site: '', masterdb: false, view: ['0', '0', zoom], radius: { major: '6378137', minor: '6378137' }, mapscale: '' },
    projection: { custom: false, epsg: '', proj: '', globeproj: 'webmercator', xmlpath: '', bounds: ['', '', '', ''], origin: ['', ''], reszoomlevel: '', resunitsperpixel: '' },
    look: { pagename: 'MMGIS', minimalist: false, topbar: true, toolbar: true, scalebar: true, coordinates: true, zoomcontrol: false, graticule: false, miscellaneous: true, bodycolor: '', topbarcolor: '', toolbarcolor: '', mapcolor: '', swap: false, copylink: true, screenshot: true, fullscreen: true, help: true, logourl: '', helpurl: '' },
    panels: ['viewer', 'map', 'globe'],
    time: { enabled: false },
    tools: [{ name: 'Layers', icon: 'buffer', js: 'LayersTool' }, ...tools],
    layers,
  };
}
