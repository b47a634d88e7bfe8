import { describe, expect, it } from 'vitest';
import {
  assignUuids,
  clampIndex,
  deepMerge,
  findLayer,
  insertLayers,
  removeLayers,
  resolveHeader,
  setInitialView,
  updateLayer,
} from '#lib/configure/layerTree.ts';
import { HttpError } from '#lib/errors.ts';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Top level: A (tile), H1 (header: B, Inner (header: C)), "2" (header: D), E (tile) */
function sample() {
  return {
    msv: { view: [1, 2, 3] },
    tools: [],
    layers: [
      { name: 'A', type: 'tile', url: 'a', uuid: U(1) },
      {
        name: 'H1',
        type: 'header',
        uuid: U(2),
        sublayers: [
          { name: 'B', type: 'tile', url: 'b', uuid: U(3) },
          {
            name: 'Inner',
            type: 'header',
            uuid: U(4),
            sublayers: [{ name: 'C', type: 'tile', url: 'c', uuid: U(5) }],
          },
        ],
      },
      {
        name: '2',
        type: 'header',
        uuid: U(6),
        sublayers: [{ name: 'D', type: 'tile', url: 'd', uuid: U(7) }],
      },
      { name: 'E', type: 'tile', url: 'e', uuid: U(8) },
    ],
  };
}

const names = (layers: any[]): any[] =>
  layers.map((l) => (l.sublayers ? { [l.name]: names(l.sublayers) } : l.name));

function httpError(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error('expected an HttpError');
}

describe('findLayer', () => {
  it.each([
    [U(1), 'A', 0],
    [U(3), 'B', 0],
    [U(5), 'C', 0],
    [U(8), 'E', 3],
    [U(4), 'Inner', 1],
  ])('finds %s anywhere in the tree', (uuid, name, index) => {
    const found = findLayer(sample().layers, uuid)!;
    expect(found.layer.name).toBe(name);
    expect(found.index).toBe(index);
    expect(found.siblings[index]).toBe(found.layer);
  });
  it('answers undefined for an unknown uuid', () => {
    expect(findLayer(sample().layers, U(99))).toBeUndefined();
  });
});

describe('resolveHeader', () => {
  it.each([
    ['', null],
    ['H1', 'H1'],
    ['H1.Inner', 'Inner'],
    ['1', 'H1'], // whole number, no header named "1": index
    ['1.1', 'Inner'],
    ['2', '2'], // a header named "2" wins over index 2
  ])('path %j names %j', (path, header) => {
    const h = resolveHeader(sample().layers, path);
    expect(h === null ? null : h.name).toBe(header);
  });
  it.each([
    ['Nope', "no header 'Nope' at the top level"],
    ['H1.Nope', "no header 'Nope' inside 'H1'"],
    ['A', "the layer 'A' at the top level is not a header"],
    ['H1.B', "the layer 'B' inside 'H1' is not a header"],
    ['0', 'the layer at index 0 at the top level is not a header'],
    ['9', "no header '9' at the top level"],
    ['H1.', "no header '' inside 'H1'"],
    ['H1.Inner.C', "the layer 'C' inside 'H1.Inner' is not a header"],
  ])('path %j is a 400 (%s)', (path, message) => {
    const e = httpError(() => resolveHeader(sample().layers, path));
    expect(e.statusCode).toBe(400);
    expect(e.message).toContain(message);
    expect(e.message).toContain('placement.path');
  });
});

describe('clampIndex', () => {
  it.each([
    [undefined, 3, 3],
    [0, 3, 0],
    [2, 3, 2],
    [3, 3, 3],
    [99, 3, 3],
    [-1, 3, 0],
    [-99, 0, 0],
  ])('index %j in a list of %d → %d', (index, length, expected) => {
    expect(clampIndex(index, length)).toBe(expected);
  });
});

describe('insertLayers', () => {
  const X = { name: 'X', type: 'tile', url: 'x' };
  const Y = { name: 'Y', type: 'tile', url: 'y' };
  it.each([
    ['end of the top level by default', undefined, ['A', 'H1', '2', 'E', 'X']],
    ['top level at index 0', { path: '', index: 0 }, ['X', 'A', 'H1', '2', 'E']],
    ['top level, index clamped high', { path: '', index: 100 }, ['A', 'H1', '2', 'E', 'X']],
    ['top level, index clamped low', { path: '', index: -3 }, ['X', 'A', 'H1', '2', 'E']],
  ])('one layer: %s', (_label, placement, expected) => {
    const next = insertLayers(sample(), X, placement);
    expect(names(next.layers).map((n) => (typeof n === 'string' ? n : Object.keys(n)[0]))).toEqual(expected);
  });
  it('inserts into a nested header at an index', () => {
    const next = insertLayers(sample(), X, { path: 'H1.Inner', index: 0 });
    expect(names(next.layers)[1]).toEqual({ H1: ['B', { Inner: ['X', 'C'] }] });
  });
  it('inserts an array in order from the index', () => {
    const next = insertLayers(sample(), [X, Y], { path: 'H1', index: 1 });
    expect(names(next.layers)[1]).toEqual({ H1: ['B', 'X', 'Y', { Inner: ['C'] }] });
  });
  it('creates sublayers on a header that has none', () => {
    const config = { layers: [{ name: 'Empty', type: 'header' }] };
    const next = insertLayers(config, X, { path: 'Empty' });
    expect(next.layers[0].sublayers).toEqual([X]);
  });
  it('never mutates its input', () => {
    const config = sample();
    const before = structuredClone(config);
    insertLayers(config, X, { path: 'H1' });
    expect(config).toEqual(before);
  });
});

describe('deepMerge', () => {
  it.each([
    ['objects merge', { a: { b: 1, c: 2 } }, { a: { c: 3 } }, { a: { b: 1, c: 3 } }],
    ['arrays replace (not concatenate)', { a: [1, 2] }, { a: [3] }, { a: [3] }],
    ['scalars replace', { a: 1, b: 'x' }, { b: 'y' }, { a: 1, b: 'y' }],
    ['null replaces', { a: { b: 1 } }, { a: null }, { a: null }],
    ['an object replaces a scalar', { a: 1 }, { a: { b: 2 } }, { a: { b: 2 } }],
    ['a scalar replaces an object', { a: { b: 2 } }, { a: 5 }, { a: 5 }],
    ['new keys are added', { a: 1 }, { z: { y: 1 } }, { a: 1, z: { y: 1 } }],
    ['deep nesting', { a: { b: { c: 1, d: 1 } } }, { a: { b: { d: 2 } } }, { a: { b: { c: 1, d: 2 } } }],
  ])('%s', (_label, base, patch, expected) => {
    expect(deepMerge(base, patch)).toEqual(expected);
  });
  it('keeps a "__proto__" key as data', () => {
    const merged = deepMerge({}, JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(merged))).toEqual(JSON.parse('{"__proto__": {"polluted": true}}'));
  });
});

describe('updateLayer', () => {
  it('merges in place, renaming', () => {
    const next = updateLayer(sample(), U(3), { name: 'B2', style: { color: 'red' } });
    expect(next.layers[1].sublayers[0]).toEqual({
      name: 'B2',
      type: 'tile',
      url: 'b',
      uuid: U(3),
      style: { color: 'red' },
    });
    expect(names(next.layers)[1]).toEqual({ H1: ['B2', { Inner: ['C'] }] });
  });
  it('accepts the unchanged uuid', () => {
    expect(updateLayer(sample(), U(1), { uuid: U(1), url: 'z' }).layers[0].url).toBe('z');
  });
  it('replaces sublayers sent in the partial layer', () => {
    const next = updateLayer(sample(), U(2), { sublayers: [{ name: 'N', type: 'tile', url: 'n' }] });
    expect(names(next.layers)[1]).toEqual({ H1: ['N'] });
  });
  it.each([
    ['to the top level end (path defaults)', {}, ['A', 'H1', '2', 'E', 'C']],
    ['to the top level start', { index: 0 }, ['C', 'A', 'H1', '2', 'E']],
  ])('moves %s', (_label, placement, expected) => {
    const next = updateLayer(sample(), U(5), {}, { path: '', ...placement });
    expect(names(next.layers).map((n) => (typeof n === 'string' ? n : Object.keys(n)[0]))).toEqual(expected);
    expect(names(next.layers)).toContainEqual({ H1: ['B', { Inner: [] }] });
  });
  it('moves into another header at an index (index after removal)', () => {
    const next = updateLayer(sample(), U(1), { name: 'A2' }, { path: 'H1', index: 1 });
    expect(names(next.layers)).toEqual([{ H1: ['B', 'A2', { Inner: ['C'] }] }, { 2: ['D'] }, 'E']);
  });
  it('moves within the same list', () => {
    const next = updateLayer(sample(), U(1), {}, { path: '', index: 2 });
    expect(names(next.layers).map((n) => (typeof n === 'string' ? n : Object.keys(n)[0]))).toEqual([
      'H1',
      '2',
      'A',
      'E',
    ]);
  });
  it.each([
    ['a changed uuid', U(1), { uuid: U(2) }, undefined, 400, 'cannot be changed'],
    ['an unknown uuid', U(99), { name: 'x' }, undefined, 404, U(99)],
    ['a move into itself', U(2), {}, { path: 'H1.Inner' }, 400, 'inside the layer being moved'],
    ['a move onto itself', U(2), {}, { path: 'H1' }, 400, 'inside the layer being moved'],
    ['a path to a non-header', U(1), {}, { path: 'E' }, 400, 'not a header'],
  ])('refuses %s', (_label, uuid, patch, placement, status, message) => {
    const e = httpError(() => updateLayer(sample(), uuid, patch, placement));
    expect(e.statusCode).toBe(status);
    expect(e.message).toContain(message);
  });
});

describe('removeLayers', () => {
  it('removes a header with its sublayers and lists them all', () => {
    const { config, removed } = removeLayers(sample(), [U(2)]);
    expect(names(config.layers)).toEqual(['A', { 2: ['D'] }, 'E']);
    expect(removed).toEqual([
      { name: 'H1', uuid: U(2) },
      { name: 'B', uuid: U(3) },
      { name: 'Inner', uuid: U(4) },
      { name: 'C', uuid: U(5) },
    ]);
  });
  it('removes several, a sublayer of a removed header listed once', () => {
    const { config, removed } = removeLayers(sample(), [U(5), U(4), U(8), U(8)]);
    expect(names(config.layers)).toEqual(['A', { H1: ['B'] }, { 2: ['D'] }]);
    expect(removed.map((r) => r.name)).toEqual(['C', 'Inner', 'E']);
  });
  it('removes nothing when any uuid is unknown (404 listing them)', () => {
    const config = sample();
    const e = httpError(() => removeLayers(config, [U(1), U(98), U(99)]));
    expect(e.statusCode).toBe(404);
    expect(e.message).toContain(U(98));
    expect(e.message).toContain(U(99));
    expect(e.message).not.toContain(U(1));
    expect(config).toEqual(sample());
  });
});

describe('assignUuids', () => {
  it('gives only layers without uuid (missing, null, empty) a new one, anywhere in the tree', () => {
    let n = 100;
    const config = {
      layers: [
        { name: 'keep', type: 'tile', uuid: U(1) },
        {
          name: 'h',
          type: 'header',
          sublayers: [
            { name: 'null', uuid: null },
            { name: 'empty', uuid: '' },
          ],
        },
      ],
    };
    const { config: next, assigned } = assignUuids(config, () => U(n++));
    expect(assigned).toEqual([
      { name: 'h', uuid: U(100) },
      { name: 'null', uuid: U(101) },
      { name: 'empty', uuid: U(102) },
    ]);
    expect(next.layers[0].uuid).toBe(U(1));
    expect(next.layers[1].sublayers[1].uuid).toBe(U(102));
    expect(config.layers[1].uuid).toBeUndefined();
  });
  it('replaces a uuid that is not a UUID string, naming what it replaced', () => {
    let n = 200;
    const config = {
      layers: [
        { name: 'placeholder', type: 'header', uuid: 1, sublayers: [{ name: 'text', uuid: 'abc' }] },
        { name: 'object', uuid: { x: 1 } },
        { name: 'keep', uuid: U(7).toUpperCase() },
      ],
    };
    const { config: next, assigned } = assignUuids(config, () => U(n++));
    expect(assigned).toEqual([
      { name: 'placeholder', uuid: U(200), replacesBadUUID: 1 },
      { name: 'text', uuid: U(201), replacesBadUUID: 'abc' },
      { name: 'object', uuid: U(202), replacesBadUUID: { x: 1 } },
    ]);
    expect(next.layers[0].sublayers[0].uuid).toBe(U(201));
    expect(next.layers[2].uuid).toBe(U(7).toUpperCase());
    expect(config.layers[0].uuid).toBe(1);
  });
  it('uses random v4 UUIDs by default', () => {
    const { assigned } = assignUuids({ layers: [{ name: 'a' }, { name: 'b' }] });
    for (const a of assigned)
      expect(a.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(assigned[0].uuid).not.toBe(assigned[1].uuid);
  });
});

describe('setInitialView', () => {
  it.each([
    ['all three', { latitude: 10, longitude: 20, zoom: 5 }, [10, 20, 5], true],
    ['only zoom', { zoom: 7 }, [1, 2, 7], true],
    ['only latitude', { latitude: -45.5 }, [-45.5, 2, 3], true],
    ['the same values', { latitude: 1, zoom: 3 }, [1, 2, 3], false],
  ])('%s', (_label, view, expected, changed) => {
    const res = setInitialView(sample(), view);
    expect(res.config.msv.view).toEqual(expected);
    expect(res.changed).toBe(changed);
  });
  it('treats a stored numeric string as equal and keeps it as given', () => {
    const config = { msv: { view: ['34.5', '-10', '4'] } };
    const same = setInitialView(config, { latitude: 34.5 });
    expect(same.changed).toBe(false);
    expect(same.config.msv.view).toEqual(['34.5', '-10', '4']);
    const moved = setInitialView(config, { zoom: 6 });
    expect(moved.config.msv.view).toEqual(['34.5', '-10', 6]);
  });
});
