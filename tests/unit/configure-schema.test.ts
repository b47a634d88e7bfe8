import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { configSchema } from '#lib/configure/schema.ts';
import { templateConfig } from '#lib/configure/template.ts';
import { validateConfig } from '#lib/configure/validate.ts';

const validate = new Ajv({ strict: false, allErrors: true }).compile(configSchema);
const base = (layers: unknown[] = []) => ({ msv: { view: [1, 2, 3] }, tools: [{ name: 'Layers' }], layers });

const valid: [string, unknown][] = [
  ['the template', templateConfig('T')],
  ['an empty map', base()],
  [
    'strings in view and zoom',
    { ...base([{ name: 't', type: 'tile', url: 'u', minZoom: '2' }]), msv: { view: ['1', '2.5', '3'] } },
  ],
  [
    'every layer type',
    base([
      { name: 'h', type: 'header', sublayers: [{ name: 'in', type: 'vector', url: 'geodatasets:x' }] },
      { name: 't', type: 'tile', url: 'u' },
      { name: 'vt', type: 'vectortile', url: 'u' },
      { name: 'd', type: 'data', demtileurl: 'u' },
      { name: 'q', type: 'query', query: { endpoint: 'e' } },
      { name: 'm', type: 'model', url: 'u', uuid: '00000000-0000-4000-8000-000000000001' },
    ]),
  ],
  ['unknown keys', { ...base([{ name: 't', type: 'tile', url: 'u', extra: { a: 1 } }]), other: true }],
  [
    'uuids a save replaces (not UUID strings)',
    base([
      { name: 'a', type: 'tile', url: 'u', uuid: 'nope' },
      { name: 'b', type: 'header', uuid: 3 },
    ]),
  ],
];

const invalid: [string, unknown][] = [
  ['not an object', 'x'],
  ['no tools', { msv: {}, layers: [] }],
  ['no msv', { tools: [], layers: [] }],
  ['layers not an array', { msv: {}, tools: [], layers: {} }],
  ['a short view', { ...base(), msv: { view: [1, 2] } }],
  ['a view with text', { ...base(), msv: { view: ['north', 2, 3] } }],
  ['a layer without name', base([{ type: 'tile', url: 'u' }])],
  ['a blank name', base([{ name: ' ', type: 'tile', url: 'u' }])],
  ['an unknown type', base([{ name: 'a', type: 'raster' }])],
  ['a tile without url', base([{ name: 'a', type: 'tile' }])],
  ['a data layer without demtileurl', base([{ name: 'a', type: 'data' }])],
  ['a query layer without endpoint', base([{ name: 'a', type: 'query', query: {} }])],
  ['a negative zoom', base([{ name: 'a', type: 'tile', url: 'u', maxZoom: -1 }])],
  [
    'sublayers on a tile',
    base([{ name: 'a', type: 'tile', url: 'u', sublayers: [{ name: 'b', type: 'tile', url: 'u' }] }]),
  ],
  [
    'an invalid nested layer',
    base([{ name: 'h', type: 'header', sublayers: [{ name: 'b', type: 'vector' }] }]),
  ],
];

describe('configSchema agrees with validateConfig', () => {
  it.each(valid)('accepts %s', (_label, config) => {
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    expect(validateConfig(config).valid).toBe(true);
  });
  it.each(invalid)('refuses %s', (_label, config) => {
    expect(validate(config)).toBe(false);
    expect(validateConfig(config).valid).toBe(false);
  });
});
