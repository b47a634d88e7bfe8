// The map viewer at `/` (docs/web.md): a mission picker, the mission's layer tree as toggles, MapLibre
// drawing our vector tiles and GeoJSON, the initial view, a time slider, feature popups and live reload.
import 'maplibre-gl/dist/maplibre-gl.css';
import '../style.css';
import { Map as MapLibreMap, NavigationControl, Popup, setWorkerUrl } from 'maplibre-gl';
import { api, query } from '../api.ts';
import {
  addLayer,
  type ConfigLayer,
  clearLayers,
  drawnIds,
  flatLayers,
  hasTime,
  layerId,
  type TimeWindow,
} from './layers.ts';
import { watchThinnedTiles } from './thinned.ts';
import { renderTimeSlider } from './time.ts';
import { renderTree } from './tree.ts';

declare const MAPLIBRE_WORKER_URL: string;
setWorkerUrl(MAPLIBRE_WORKER_URL);

interface MissionConfig {
  msv?: { view?: (number | string)[] };
  layers?: ConfigLayer[];
  time?: { initialstart?: string; initialend?: string };
}

const app = document.getElementById('app')!;
app.className = 'viewer';
app.innerHTML = `
  <aside class="panel">
    <h1>Map viewer</h1>
    <label for="mission">Mission</label> <select id="mission"></select>
    <p id="status" role="status"></p>
    <nav aria-label="Layers" id="tree"></nav>
    <div id="time"></div>
    <p class="small"><a href="/configure">Configure</a></p>
  </aside>
  <main id="map" aria-label="Map"></main>`;
const select = app.querySelector<HTMLSelectElement>('#mission')!;
const status = app.querySelector<HTMLElement>('#status')!;

const map = new MapLibreMap({
  container: 'map',
  style: {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eef0ea' } }],
  },
  center: [0, 0],
  zoom: 1,
  attributionControl: false,
});
map.addControl(new NavigationControl(), 'top-right');
watchThinnedTiles(map, app.querySelector<HTMLElement>('#map')!);
map.on('error', (e) => {
  status.textContent = `Map: ${e.error?.message ?? 'error'}`;
  console.warn(e.error);
});

// The time to the first drawn tile, for bench/web.ts: a performance mark after the first tile's render.
let firstTile = false;
map.on('sourcedata', (e) => {
  if (firstTile || !e.tile || !e.sourceId.startsWith('l-')) return;
  firstTile = true;
  map.once('render', () => performance.mark('mmgis:first-tile'));
});

let mission = '';
let config: MissionConfig = {};
let time: TimeWindow | null = null;
/** Layer names by the id their source and style layers start with (for the popup's caption). */
const names = new Map<string, string>();

async function drawLayers(layers: ConfigLayer[]) {
  clearLayers(map);
  await Promise.all(layers.map((l) => addLayer(map, l, time)));
  app.dataset.loaded = mission;
}

async function loadMission(name: string, fly: boolean) {
  mission = name;
  status.textContent = '';
  config = await api<MissionConfig>('GET', `/api/configure/get${query({ mission: name })}`);
  const layers = config.layers ?? [];
  const view = (config.msv?.view ?? []).map(Number);
  if (fly && view.length >= 3 && view.every(Number.isFinite)) {
    map.jumpTo({ center: [view[1], view[0]], zoom: view[2] });
  }
  names.clear();
  for (const l of flatLayers(layers)) names.set(layerId(l), l.name);
  const timed = flatLayers(layers).filter(hasTime);
  time = timed.length ? (time ?? defaultWindow(config)) : null;
  renderTree(app.querySelector('#tree')!, layers, (layer, on) => {
    for (const id of drawnIds(map, layer)) map.setLayoutProperty(id, 'visibility', on ? 'visible' : 'none');
    layer.visibility = on;
  });
  renderTimeSlider(app.querySelector('#time')!, time, config.time, async (w) => {
    time = w;
    await Promise.all(timed.map((l) => addLayer(map, l, time)));
  });
  await drawLayers(flatLayers(layers));
  subscribe(name);
}

function defaultWindow(c: MissionConfig): TimeWindow {
  const end =
    c.time?.initialend && !Number.isNaN(Date.parse(c.time.initialend))
      ? c.time.initialend
      : new Date().toISOString();
  const start =
    c.time?.initialstart && !Number.isNaN(Date.parse(c.time.initialstart))
      ? c.time.initialstart
      : new Date(Date.parse(end) - 365 * 86400_000).toISOString();
  return { start, end };
}

map.on('click', (e) => {
  const ours = (map.getStyle().layers ?? []).filter((l) => l.id.startsWith('l-')).map((l) => l.id);
  const [f] = map.queryRenderedFeatures(e.point, { layers: ours });
  if (!f) return;
  const table = document.createElement('table');
  table.className = 'props';
  const caption = table.createCaption();
  caption.textContent = names.get(f.layer.id.replace(/-(fill|line|point)$/, '')) ?? '';
  for (const [k, v] of Object.entries(f.properties ?? {})) {
    const row = table.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = k;
    row.append(th);
    row.insertCell().textContent = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  new Popup({ maxWidth: '320px' }).setLngLat(e.lngLat).setDOMContent(table).addTo(map);
});

// Live reload: the service pushes {type:'config', mission, forceClientUpdate} on the WebSocket.
let socket: WebSocket | null = null;
function subscribe(name: string) {
  const url = document.querySelector<HTMLMetaElement>('meta[name="mmgis-websocket"]')?.content;
  if (!url) return;
  if (socket && socket.readyState <= WebSocket.OPEN) {
    if (socket.readyState === WebSocket.OPEN)
      socket.send(JSON.stringify({ action: 'subscribe', mission: name }));
    return;
  }
  socket = new WebSocket(url);
  socket.onopen = () => {
    // Tests wait for it: from here on, a pushed change reaches this page.
    performance.mark('mmgis:live');
    socket?.send(JSON.stringify({ action: 'subscribe', mission }));
  };
  socket.onmessage = (m) => {
    let msg: { type?: string; mission?: string; forceClientUpdate?: boolean };
    try {
      msg = JSON.parse(String(m.data));
    } catch {
      return;
    }
    if (msg.type === 'config' && msg.forceClientUpdate && msg.mission === mission) {
      status.textContent = 'The mission changed; reloaded.';
      loadMission(mission, false).catch(showError);
    }
  };
  socket.onclose = () => {
    socket = null;
    setTimeout(() => subscribe(mission), 5000);
  };
}

function showError(e: unknown) {
  status.textContent = (e as Error).message;
}

async function start() {
  const { missions } = await api<{ missions: string[] }>('GET', '/api/configure/missions');
  select.replaceChildren(...missions.map((m) => new Option(m, m)));
  const wanted = new URLSearchParams(location.search).get('mission');
  const first = wanted && missions.includes(wanted) ? wanted : missions[0];
  if (!first) {
    status.textContent = 'No mission yet: create one under Configure.';
    return;
  }
  select.value = first;
  await loadMission(first, true);
}

select.addEventListener('change', () => {
  const url = new URL(location.href);
  url.searchParams.set('mission', select.value);
  history.replaceState(null, '', url);
  loadMission(select.value, true).catch(showError);
});

map.once('load', () => start().catch(showError));
