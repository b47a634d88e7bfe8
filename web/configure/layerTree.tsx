import { api } from '../api.ts';
import { Message } from './Message.tsx';
import { useAction } from './useApi.ts';

interface Layer {
  name: string;
  type: string;
  uuid?: string;
  url?: string;
  sublayers?: Layer[];
}

const TYPES = ['header', 'vector', 'vectortile', 'tile', 'query', 'data', 'model'];

/**
 * The layer tree of a mission with add, rename, move and remove through the layer endpoints, and the
 * initial view (`msv.view`) through updateInitialView. `onChange` reloads the mission after a change.
 */
export function LayerTree({
  mission,
  config,
  onChange,
}: {
  mission: string;
  config: Record<string, unknown>;
  onChange: () => void;
}) {
  const { msg, run } = useAction();
  const layers = (config.layers as Layer[] | undefined) ?? [];
  const view = ((config.msv as { view?: unknown[] } | undefined)?.view ?? []) as (string | number)[];
  const call = (path: string, body: Record<string, unknown>, done: string) =>
    run(async () => {
      await api('POST', `/api/configure/${path}`, { mission, forceClientUpdate: true, ...body });
      onChange();
      return done;
    });
  const add = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const layer: Record<string, unknown> = { name: f.get('name'), type: f.get('type') };
    if (layer.type === 'header') layer.sublayers = [];
    else if (f.get('url')) layer.url = f.get('url');
    if (layer.type === 'vector' || layer.type === 'vectortile') layer.visibility = true;
    const path = String(f.get('path') ?? '');
    return call('addLayer', { layer, placement: path ? { path } : undefined }, `Layer ${layer.name} added.`);
  };
  const setView = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    return call(
      'updateInitialView',
      {
        latitude: Number(f.get('latitude')),
        longitude: Number(f.get('longitude')),
        zoom: Number(f.get('zoom')),
      },
      'Initial view saved.',
    );
  };
  const headers: string[] = [];
  const collect = (items: Layer[], prefix: string) => {
    for (const l of items) {
      if (l.type !== 'header') continue;
      const p = prefix ? `${prefix}.${l.name}` : l.name;
      headers.push(p);
      collect(l.sublayers ?? [], p);
    }
  };
  collect(layers, '');
  const tree = (items: Layer[], path: string) => (
    <ul>
      {items.map((l, i) => (
        <li key={l.uuid ?? l.name}>
          <input
            aria-label={`Name of layer ${l.name}`}
            defaultValue={l.name}
            onChange={(e) =>
              call(
                'updateLayer',
                { layerUUID: l.uuid, layer: { name: (e.currentTarget as HTMLInputElement).value } },
                'Layer renamed.',
              )
            }
          />{' '}
          <span class="small">{l.type}</span>{' '}
          <button
            type="button"
            aria-label={`Move ${l.name} up`}
            disabled={i === 0}
            onClick={() =>
              call(
                'updateLayer',
                { layerUUID: l.uuid, layer: {}, placement: path ? { path, index: i - 1 } : { index: i - 1 } },
                'Layer moved.',
              )
            }
          >
            ↑
          </button>
          <button
            type="button"
            aria-label={`Move ${l.name} down`}
            disabled={i === items.length - 1}
            onClick={() =>
              call(
                'updateLayer',
                { layerUUID: l.uuid, layer: {}, placement: path ? { path, index: i + 1 } : { index: i + 1 } },
                'Layer moved.',
              )
            }
          >
            ↓
          </button>{' '}
          <button
            type="button"
            aria-label={`Remove layer ${l.name}`}
            onClick={() => call('removeLayer', { layerUUID: [l.uuid] }, `Layer ${l.name} removed.`)}
          >
            Remove
          </button>
          {l.type === 'header' && tree(l.sublayers ?? [], path ? `${path}.${l.name}` : l.name)}
        </li>
      ))}
    </ul>
  );
  return (
    <section aria-label="Layers">
      <h3>Layers</h3>
      <Message msg={msg} />
      {tree(layers, '')}
      <form onSubmit={add}>
        <label>
          Layer name
          <input name="name" required />
        </label>
        <span class="field">
          <label htmlFor="layer-type">Layer type</label>
          <select id="layer-type" name="type">
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </span>
        <label>
          URL
          <input name="url" placeholder="geodatasets:name" />
        </label>
        <span class="field">
          <label htmlFor="layer-path">Under header</label>
          <select id="layer-path" name="path">
            <option value="">(top level)</option>
            {headers.map((h) => (
              <option key={h}>{h}</option>
            ))}
          </select>
        </span>
        <button type="submit">Add layer</button>
      </form>
      <h3>Initial view</h3>
      <form onSubmit={setView} key={view.join(',')}>
        <label>
          Latitude
          <input
            name="latitude"
            type="number"
            step="any"
            min={-90}
            max={90}
            defaultValue={String(view[0] ?? 0)}
          />
        </label>
        <label>
          Longitude
          <input
            name="longitude"
            type="number"
            step="any"
            min={-360}
            max={360}
            defaultValue={String(view[1] ?? 0)}
          />
        </label>
        <label>
          Zoom
          <input name="zoom" type="number" step="any" min={0} defaultValue={String(view[2] ?? 0)} />
        </label>
        <button type="submit">Save view</button>
      </form>
    </section>
  );
}
