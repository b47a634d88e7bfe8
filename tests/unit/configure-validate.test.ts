import { describe, expect, it } from 'vitest';
import { templateConfig } from '#lib/configure/template.ts';
import { geodatasetNames, validateConfig } from '#lib/configure/validate.ts';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function base(layers: unknown[] = []): Record<string, any> {
  return { msv: { mission: 'm', view: [10, 20, 3] }, tools: [{ name: 'Layers' }], layers };
}

describe('validateConfig: valid configurations', () => {
  it.each([
    ['an empty map', base()],
    ['the /add template', templateConfig('Some Mission')],
    [
      'every layer type with its required fields',
      base([
        { name: 'h', type: 'header', sublayers: [] },
        { name: 't', type: 'tile', url: 'x/{z}/{x}/{y}.png', minZoom: 0, maxNativeZoom: 18, maxZoom: 22 },
        { name: 'vt', type: 'vectortile', url: 'x' },
        { name: 'd', type: 'data', demtileurl: 'dem/{z}/{x}/{y}.png' },
        { name: 'q', type: 'query', query: { endpoint: 'https://example.test/q' } },
        { name: 'v', type: 'vector', url: 'geodatasets:points' },
        { name: 'mo', type: 'model', url: 'x.glb' },
      ]),
    ],
    [
      'MMGIS-era strings in view and zoom',
      {
        ...base([{ name: 't', type: 'tile', url: 'u', minZoom: '2', maxNativeZoom: '10' }]),
        msv: { view: ['-4.5', '137.4', '16'] },
      },
    ],
    ['a header without sublayers', base([{ name: 'h', type: 'header' }])],
    [
      'unknown keys anywhere',
      { ...base([{ name: 't', type: 'tile', url: 'u', anything: { deep: [1] } }]), extra: 1 },
    ],
    [
      'valid unique uuids (any case)',
      base([
        { name: 'a', type: 'tile', url: 'u', uuid: U(1) },
        { name: 'b', type: 'tile', url: 'u', uuid: U(2).toUpperCase() },
      ]),
    ],
    [
      'null and empty uuids (upsert assigns them)',
      base([
        { name: 'a', type: 'tile', url: 'u', uuid: null },
        { name: 'b', type: 'tile', url: 'u', uuid: '' },
      ]),
    ],
    ['view at the range limits', { ...base(), msv: { view: [-90, 360, 0] } }],
  ])('%s', (_label, config) => {
    const before = structuredClone(config);
    const res = validateConfig(config, new Set(['points']));
    expect(res.errors).toEqual([]);
    expect(res.valid).toBe(true);
    expect(config).toEqual(before); // never mutated, never defaulted
  });
});

describe('validateConfig: errors', () => {
  it.each([
    ['a non-object config', 'text', 'config'],
    ['an array config', [], 'config'],
    ['null', null, 'config'],
    ['missing msv', { tools: [], layers: [] }, 'msv'],
    ['msv not an object', { msv: [], tools: [], layers: [] }, 'msv'],
    ['missing layers', { msv: {}, tools: [] }, 'layers'],
    ['layers not an array', { msv: {}, tools: [], layers: {} }, 'layers'],
    ['missing tools', { msv: {}, layers: [] }, 'tools'],
    ['a tool that is not an object', { ...base(), tools: ['Layers'] }, 'tools[0]'],
    ['a view that is not a list of three', { ...base(), msv: { view: [1, 2] } }, 'msv.view'],
    ['a latitude out of range', { ...base(), msv: { view: [91, 0, 1] } }, 'msv.view[0]'],
    ['a longitude out of range', { ...base(), msv: { view: [0, -361, 1] } }, 'msv.view[1]'],
    ['a negative zoom', { ...base(), msv: { view: [0, 0, -1] } }, 'msv.view[2]'],
    ['a non-numeric view value', { ...base(), msv: { view: ['north', 0, 1] } }, 'msv.view[0]'],
    ['a layer that is not an object', base(['tile']), 'layers[0]'],
    ['a layer without name', base([{ type: 'tile', url: 'u' }]), 'layers[0].name'],
    ['a layer with an empty name', base([{ name: '  ', type: 'tile', url: 'u' }]), 'layers[0].name'],
    ['a layer with a non-string name', base([{ name: 5, type: 'tile', url: 'u' }]), 'layers[0].name'],
    ['an unknown type', base([{ name: 'a', type: 'raster', url: 'u' }]), 'layers[0].type'],
    ['a missing type', base([{ name: 'a', url: 'u' }]), 'layers[0].type'],
    ['a tile layer without url', base([{ name: 'a', type: 'tile' }]), 'layers[0].url'],
    [
      'a vectortile layer with an empty url',
      base([{ name: 'a', type: 'vectortile', url: '' }]),
      'layers[0].url',
    ],
    ['a vector layer without url', base([{ name: 'a', type: 'vector' }]), 'layers[0].url'],
    ['a model layer without url', base([{ name: 'a', type: 'model' }]), 'layers[0].url'],
    [
      'a data layer without demtileurl',
      base([{ name: 'a', type: 'data', url: 'u' }]),
      'layers[0].demtileurl',
    ],
    [
      'a query layer without query.endpoint',
      base([{ name: 'a', type: 'query', query: {} }]),
      'layers[0].query.endpoint',
    ],
    ['a negative minZoom', base([{ name: 'a', type: 'tile', url: 'u', minZoom: -1 }]), 'layers[0].minZoom'],
    [
      'a non-numeric maxZoom',
      base([{ name: 'a', type: 'tile', url: 'u', maxZoom: 'high' }]),
      'layers[0].maxZoom',
    ],
    [
      'minZoom above maxNativeZoom',
      base([{ name: 'a', type: 'tile', url: 'u', minZoom: 10, maxNativeZoom: 5 }]),
      'layers[0].minZoom',
    ],
    [
      'sublayers on a non-header',
      base([{ name: 'a', type: 'tile', url: 'u', sublayers: [{ name: 'b', type: 'tile', url: 'u' }] }]),
      'layers[0].sublayers',
    ],
    [
      'header sublayers not an array',
      base([{ name: 'h', type: 'header', sublayers: {} }]),
      'layers[0].sublayers',
    ],
    [
      'a duplicate uuid across the tree',
      base([
        { name: 'a', type: 'tile', url: 'u', uuid: U(1) },
        {
          name: 'h',
          type: 'header',
          sublayers: [{ name: 'b', type: 'tile', url: 'u', uuid: U(1).toUpperCase() }],
        },
      ]),
      'layers[1].sublayers[0].uuid',
    ],
    [
      'an error deep inside headers',
      base([
        {
          name: 'h',
          type: 'header',
          sublayers: [{ name: 'i', type: 'header', sublayers: [{ name: 'x', type: 'tile' }] }],
        },
      ]),
      'layers[0].sublayers[0].sublayers[0].url',
    ],
  ])('%s → invalidFields contains %j', (_label, config, field) => {
    const res = validateConfig(config);
    expect(res.valid).toBe(false);
    expect(res.errors.length).toBeGreaterThan(0);
    const issue = res.errors.find((e) => e.invalidFields.includes(field as string));
    expect(issue, JSON.stringify(res.errors)).toBeDefined();
    expect(issue!.type).toBe('error');
    expect(issue!.reason.length).toBeGreaterThan(5);
  });

  it('refuses any value nested deeper than 100 levels (checked without recursion)', () => {
    let deep: any = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const res = validateConfig({ ...base(), extra: deep });
    expect(res.valid).toBe(false);
    expect(res.errors[0].reason).toContain('nested deeper than 100');
    let ok: any = 1;
    for (let i = 0; i < 98; i++) ok = [ok];
    expect(validateConfig({ ...base(), extra: ok }).valid).toBe(true);
  });

  it('refuses trees nested deeper than the limit', () => {
    let layer: any = { name: 'leaf', type: 'tile', url: 'u' };
    for (let i = 0; i < 40; i++) layer = { name: `h${i}`, type: 'header', sublayers: [layer] };
    const res = validateConfig(base([layer]));
    expect(res.valid).toBe(false);
    expect(res.errors[0].reason).toContain('nested deeper');
  });
});

describe('validateConfig: warnings never invalidate', () => {
  it.each([
    [
      'a geodataset that does not exist',
      base([{ name: 'v', type: 'vector', url: 'geodatasets:nope' }]),
      'layers[0].url',
    ],
    [
      'a duplicate layer name',
      base([
        { name: 'a', type: 'tile', url: 'u' },
        { name: 'a', type: 'tile', url: 'u' },
      ]),
      'layers[1].name',
    ],
    ['a missing initial view', { ...base(), msv: {} }, 'msv.view'],
    [
      'an empty sublayers list on a non-header',
      base([{ name: 'a', type: 'tile', url: 'u', sublayers: [] }]),
      'layers[0].sublayers',
    ],
    ['a tool without a name', { ...base(), tools: [{}] }, 'tools[0].name'],
    ['a header name with a dot', base([{ name: 'a.b', type: 'header' }]), 'layers[0].name'],
    // The configure app's placeholder for a new layer; a save replaces it.
    ['a uuid that is not a string', base([{ name: 'a', type: 'tile', url: 'u', uuid: 5 }]), 'layers[0].uuid'],
    [
      'a uuid that is not a UUID',
      base([{ name: 'a', type: 'tile', url: 'u', uuid: 'abc' }]),
      'layers[0].uuid',
    ],
  ])('%s', (_label, config, field) => {
    const res = validateConfig(config, new Set(['other']));
    expect(res.valid).toBe(true);
    expect(res.errors).toEqual([]);
    const w = res.warnings.find((x) => x.invalidFields.includes(field));
    expect(w, JSON.stringify(res.warnings)).toBeDefined();
    expect(w!.type).toBe('warning');
  });
  it('skips the geodataset check when no dataset list is given', () => {
    const res = validateConfig(base([{ name: 'v', type: 'vector', url: 'geodatasets:nope' }]));
    expect(res.warnings).toEqual([]);
  });
});

describe('geodatasetNames', () => {
  it('collects geodataset urls once each, from the whole tree', () => {
    const config = base([
      { name: 'a', type: 'vector', url: 'geodatasets:one' },
      { name: 'h', type: 'header', sublayers: [{ name: 'b', type: 'vector', url: 'geodatasets:two' }] },
      { name: 'c', type: 'vector', url: 'geodatasets:one' },
      { name: 'd', type: 'tile', url: 'https://x/geodatasets:three' },
    ]);
    expect(geodatasetNames(config).sort()).toEqual(['one', 'two']);
    expect(geodatasetNames('nope')).toEqual([]);
  });
});
