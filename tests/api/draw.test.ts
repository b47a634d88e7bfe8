import * as turf from '@turf/turf';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrlLocal, call } from '../helpers.ts';
import { type As, add, features, history, makeFile, newUser, post, postForm, square } from './drawHelpers.ts';

const area = (g: any) => turf.area(turf.feature(g));
/** The set of distinct vertices (a ring's closing position and its starting vertex do not matter). */
const vertices = (g: any) =>
  [...new Set(turf.coordAll(turf.feature(g)).map((p) => `${p[0].toFixed(6)},${p[1].toFixed(6)}`))].sort();
const ids = (fs: any[]) => fs.map((f) => f.properties._.id).sort((a, b) => a - b);

let me: As & { username: string };
beforeAll(async () => {
  me = await newUser();
});

describe('draw add, edit, remove, undo with history', () => {
  it('keeps every change as a snapshot, answers getfile at past times, and undoes', async () => {
    const file = await makeFile(me);
    // An empty file has no history yet (as in MMGIS); each action is labelled as MMGIS's History tab reads it.
    expect(await history(me, file)).toEqual([]);

    const a = await add(me, file, square(0, 0, 1), { properties: { name: 'A' }, intent: 'polygon' });
    expect(a.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.intent).toBe('polygon');
    const b = await add(
      me,
      file,
      {
        type: 'LineString',
        coordinates: [
          [2, 2],
          [3, 3],
        ],
      },
      { intent: 'line' },
    );
    const pt = await add(me, file, { type: 'Point', coordinates: [5, 5] }, { order: 'min' });

    let fs = await features(me, file);
    expect(ids(fs)).toEqual([a.id, b.id, pt.id].sort((x, y) => x - y));
    const byId = new Map(fs.map((f) => [f.properties._.id, f]));
    expect(byId.get(a.id).properties).toMatchObject({ name: 'A', uuid: a.uuid });
    expect(byId.get(a.id).properties._).toEqual({ id: a.id, file_id: file, level: 0, intent: 'polygon' });
    expect(byId.get(b.id).properties._.level).toBe(1);
    expect(byId.get(pt.id).properties._.level).toBe(-1);
    // Sorted by level: the point added with order=min comes first.
    expect(fs[0].properties._.id).toBe(pt.id);
    expect(Math.abs(area(byId.get(a.id).geometry) - area(square(0, 0, 1)))).toBeLessThan(1);

    const h1 = await history(me, file);
    expect(h1.map((h) => h.action_index)).toEqual([0, 0, 0]);
    expect(h1[0].history).toEqual([a.id, b.id, pt.id]);
    const times = h1.map((h) => h.time);
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(new Set(times).size).toBe(times.length);

    // edit: a new row replaces the old in the snapshot; properties replace, uuid kept.
    const e = await post(
      '/api/draw/edit',
      { file_id: file, feature_id: a.id, geometry: square(0, 0, 2), properties: { name: 'A2' } },
      me,
    );
    expect(e.status).toBe(200);
    expect(e.body.body.id).not.toBe(a.id);
    expect(e.body.body.uuid).toBe(a.uuid);
    fs = await features(me, file);
    const edited = fs.find((f) => f.properties._.id === e.body.body.id);
    expect(edited.properties.name).toBe('A2');
    expect(edited.properties._.level).toBe(0);
    expect(area(edited.geometry) / area(square(0, 0, 1))).toBeCloseTo(4, 1);
    expect(ids(fs)).not.toContain(a.id);

    // remove answers the new history.
    const r = await post('/api/draw/remove', { file_id: file, id: b.id }, me);
    expect(r.status).toBe(200);
    expect(r.body.body).toEqual([e.body.body.id, pt.id]);

    const h2 = await history(me, file);
    expect(h2.slice(0, 2).map((h) => h.message)).toEqual(['Delete', 'Edit']);

    // getfile at the time of the 3rd add still shows the original square and the line.
    const past = await features(me, file, h1[0].time);
    expect(ids(past)).toEqual([a.id, b.id, pt.id].sort((x, y) => x - y));
    // before the first add: nothing (an empty file has no snapshot).
    const before = await features(me, file, h1[2].time - 1);
    expect(before).toEqual([]);

    // undo to the snapshot after the 3 adds: a new snapshot (action 3) with those ids.
    const u = await post('/api/draw/undo', { file_id: file, undo_time: h1[0].time }, me);
    expect(u.status).toBe(200);
    expect(u.body.body.action_index).toBe(3);
    expect(ids(await features(me, file))).toEqual([a.id, b.id, pt.id].sort((x, y) => x - y));
    const h3 = await history(me, file);
    expect(h3[0]).toMatchObject({ action_index: 3, message: 'Undo', history: [a.id, b.id, pt.id] });
    expect(h3).toHaveLength(h2.length + 1);

    // reassignUUID gives a new uuid.
    const e2 = await post('/api/draw/edit', { file_id: file, feature_id: pt.id, reassignUUID: true }, me);
    expect(e2.body.body.uuid).not.toBe(pt.uuid);
  });

  it('refuses bad input with 400 naming the field and unknown ids with 404, changing nothing', async () => {
    const file = await makeFile(me);
    const a = await add(me, file, square(0, 0, 1));
    const before = await history(me, file);
    const cases: [string, Record<string, unknown>, number, RegExp][] = [
      ['/api/draw/add', { file_id: file }, 400, /geometry/],
      ['/api/draw/add', { file_id: file, geometry: '{not json' }, 400, /geometry/],
      [
        '/api/draw/add',
        { file_id: file, geometry: { type: 'Point', coordinates: [200, 0] } },
        400,
        /geometry.*longitude/,
      ],
      [
        '/api/draw/add',
        {
          file_id: file,
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [1, 1],
              ],
            ],
          },
        },
        400,
        /geometry/,
      ],
      ['/api/draw/add', { file_id: 'x', geometry: square(0, 0, 1) }, 400, /file_id/],
      ['/api/draw/add', { file_id: file, geometry: square(0, 0, 1), properties: '[1]' }, 400, /properties/],
      ['/api/draw/add', { file_id: file, geometry: square(0, 0, 1), intent: 'blob' }, 400, /intent/],
      [
        '/api/draw/add',
        { file_id: file, geometry: { type: 'Point', coordinates: [0, 0] }, clip: 'over' },
        400,
        /clip/,
      ],
      ['/api/draw/add', { file_id: 999999, geometry: square(0, 0, 1) }, 404, /file/],
      ['/api/draw/edit', { file_id: file, feature_id: a.id + 1000 }, 404, /feature_id/],
      ['/api/draw/edit', { file_id: file, feature_id: a.id, geometry: { type: 'Nope' } }, 400, /geometry/],
      ['/api/draw/remove', { file_id: file, id: a.id + 1000 }, 404, /id/],
      ['/api/draw/remove', { file_id: file }, 400, /'id'/],
      ['/api/draw/undo', { file_id: file, undo_time: 1 }, 404, /snapshot/],
      ['/api/draw/merge', { file_id: file, prop_id: a.id, ids: '[nope' }, 400, /ids/],
      ['/api/draw/split', { file_id: file, ids: [a.id], split: square(0, 0, 1) }, 400, /split/],
    ];
    for (const [path, body, status, msg] of cases) {
      const r = await post(path, body, me);
      expect([path, r.status]).toEqual([path, status]);
      expect(r.body.status).toBe('failure');
      expect(r.body.message).toMatch(msg);
    }
    expect(await history(me, file)).toEqual(before);
  });

  it('needs a logged-in user under both AUTH modes', async () => {
    for (const base of [undefined, apiUrlLocal()]) {
      const r = await call('POST', '/api/draw/add', {
        body: { file_id: 1, geometry: square(0, 0, 1) },
        base,
      });
      expect(r.status).toBe(401);
      const g = await call('POST', '/api/files/getfiles', { body: {}, base });
      expect(g.status).toBe(401);
    }
    const local = await newUser(apiUrlLocal());
    const file = await makeFile(local);
    const a = await add(local, file, square(0, 0, 1));
    expect(ids(await features(local, file))).toEqual([a.id]);
  });
});

describe('merge, split, clip', () => {
  it('merges overlapping polygons into their union with prop_id properties', async () => {
    const file = await makeFile(me);
    const p1 = await add(me, file, square(0, 0, 2), { properties: { name: 'keep' } });
    const p2 = await add(me, file, square(1, 1, 2), { properties: { name: 'other' } });
    const far = await add(me, file, square(10, 10, 1));
    const r = await post('/api/draw/merge', { file_id: file, prop_id: p1.id, ids: [p2.id] }, me);
    expect(r.status).toBe(200);
    expect(r.body.body.ids).toHaveLength(1);
    const fs = await features(me, file);
    expect(ids(fs)).toEqual([far.id, r.body.body.ids[0]].sort((a, b) => a - b));
    const merged = fs.find((f) => f.properties._.id === r.body.body.ids[0]);
    expect(merged.properties).toMatchObject({ name: 'keep', uuid: p1.uuid });
    const expected = turf.union(
      turf.featureCollection([
        turf.polygon(square(0, 0, 2).coordinates),
        turf.polygon(square(1, 1, 2).coordinates),
      ]),
    )!;
    expect(area(merged.geometry) / turf.area(expected)).toBeCloseTo(1, 4);
    expect(vertices(merged.geometry)).toEqual(vertices(expected.geometry));
    const h = await history(me, file);
    expect(h[0]).toMatchObject({ action_index: 6, message: 'Merge' });
  });

  it('merges touching lines into one line', async () => {
    const file = await makeFile(me);
    const l1 = await add(me, file, {
      type: 'LineString',
      coordinates: [
        [0, 0],
        [1, 0],
      ],
    });
    const l2 = await add(me, file, {
      type: 'LineString',
      coordinates: [
        [1, 0],
        [1, 1],
        [2, 1],
      ],
    });
    const r = await post('/api/draw/merge', { file_id: file, prop_id: l2.id, ids: [l1.id, l2.id] }, me);
    expect(r.status).toBe(200);
    expect(r.body.body.ids).toHaveLength(1);
    const [f] = await features(me, file);
    expect(f.geometry.type).toBe('LineString');
    expect(turf.length(f)).toBeCloseTo(
      turf.length(
        turf.lineString([
          [0, 0],
          [1, 0],
        ]),
      ) +
        turf.length(
          turf.lineString([
            [1, 0],
            [1, 1],
            [2, 1],
          ]),
        ),
      6,
    );
    expect(vertices(f.geometry)).toEqual(
      vertices({
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 0],
          [1, 1],
          [2, 1],
        ],
      }),
    );
  });

  it('splits the features a line cuts and keeps those beside it', async () => {
    const file = await makeFile(me);
    const cut = await add(me, file, square(0, 0, 2), { properties: { name: 'cut' } });
    const beside = await add(me, file, square(5, 0, 1), { properties: { name: 'beside' } });
    const line = await add(me, file, {
      type: 'LineString',
      coordinates: [
        [-1, 0.5],
        [3, 0.5],
      ],
    });
    const blade = {
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'LineString',
        coordinates: [
          [1, -1],
          [1, 3],
        ],
      },
    };
    const r = await post(
      '/api/draw/split',
      { file_id: file, split: blade, ids: [cut.id, beside.id, line.id] },
      me,
    );
    expect(r.status).toBe(200);
    expect(r.body.body.ids).toHaveLength(4);
    const fs = await features(me, file);
    expect(ids(fs)).toContain(beside.id);
    expect(ids(fs)).not.toContain(cut.id);
    expect(ids(fs)).not.toContain(line.id);
    const halves = fs.filter((f) => f.properties.name === 'cut');
    expect(halves).toHaveLength(2);
    for (const h of halves) {
      expect(h.properties.uuid).toBe(cut.uuid);
      expect(area(h.geometry) / area(square(0, 0, 2))).toBeCloseTo(0.5, 4);
    }
    const west = halves.find((h) => turf.bbox(h)[2] <= 1 + 1e-9)!;
    expect(turf.booleanWithin(west, turf.polygon(square(0, 0, 2).coordinates))).toBe(true);
    const pieces = fs.filter((f) => f.geometry.type === 'LineString');
    expect(pieces).toHaveLength(2);
    expect(pieces.map((p) => turf.length(p)).reduce((a, b) => a + b)).toBeCloseTo(
      turf.length(
        turf.lineString([
          [-1, 0.5],
          [3, 0.5],
        ]),
      ),
      3,
    );
    expect((await history(me, file))[0]).toMatchObject({ action_index: 8, message: 'Split' });

    // A blade that cuts nothing changes nothing.
    const before = await history(me, file);
    const miss = await post(
      '/api/draw/split',
      {
        file_id: file,
        split: {
          type: 'LineString',
          coordinates: [
            [20, 20],
            [21, 21],
          ],
        },
        ids: [beside.id],
      },
      me,
    );
    expect(miss.body.body.ids).toEqual([]);
    expect(await history(me, file)).toEqual(before);
  });

  it('clips over: existing polygons lose the new one', async () => {
    const file = await makeFile(me);
    const base = await add(me, file, square(0, 0, 2), { properties: { name: 'base' } });
    const pt = await add(me, file, { type: 'Point', coordinates: [1.5, 1.5] });
    const top = await add(me, file, square(1, 1, 2), { clip: 'over' });
    const fs = await features(me, file);
    expect(ids(fs)).not.toContain(base.id);
    expect(ids(fs)).toContain(pt.id);
    expect(ids(fs)).toContain(top.id);
    const clipped = fs.find((f) => f.properties.name === 'base');
    expect(clipped.properties.uuid).toBe(base.uuid);
    const expected = turf.difference(
      turf.featureCollection([
        turf.polygon(square(0, 0, 2).coordinates),
        turf.polygon(square(1, 1, 2).coordinates),
      ]),
    )!;
    expect(area(clipped.geometry) / turf.area(expected)).toBeCloseTo(1, 4);
    expect(vertices(clipped.geometry)).toEqual(vertices(expected.geometry));
    const added = fs.find((f) => f.properties._.id === top.id);
    expect(area(added.geometry) / area(square(1, 1, 2))).toBeCloseTo(1, 6);
    expect((await history(me, file))[0]).toMatchObject({ action_index: 5, message: 'Add (over)' });
  });

  it('clips under: the new polygon loses what it overlaps', async () => {
    const file = await makeFile(me);
    const base = await add(me, file, square(0, 0, 2));
    const under = await add(me, file, square(1, -1, 2), { clip: 'under', properties: { name: 'under' } });
    const fs = await features(me, file);
    expect(ids(fs)).toContain(base.id);
    const added = fs.filter((f) => f.properties.name === 'under');
    expect(added).toHaveLength(1);
    expect(added[0].properties._.id).toBe(under.id);
    const expected = turf.difference(
      turf.featureCollection([
        turf.polygon(square(1, -1, 2).coordinates),
        turf.polygon(square(0, 0, 2).coordinates),
      ]),
    )!;
    expect(area(added[0].geometry) / turf.area(expected)).toBeCloseTo(1, 4);
    expect(vertices(added[0].geometry)).toEqual(vertices(expected.geometry));
    const baseF = fs.find((f) => f.properties._.id === base.id);
    const overlap = turf.intersect(turf.featureCollection([added[0], baseF]));
    expect(overlap === null ? 0 : turf.area(overlap)).toBeLessThan(1);
    expect((await history(me, file))[0]).toMatchObject({ action_index: 7, message: 'Add (under)' });
  });
});

describe('body encodings', () => {
  it('a jQuery form post and a JSON post give the same results', async () => {
    const results: unknown[] = [];
    for (const send of [post, postForm] as const) {
      const made = await send(
        '/api/files/make',
        { file_name: 'enc', file_description: 'x ~#t', intent: 'roi' },
        me,
      );
      expect(made.status).toBe(200);
      const file = made.body.body.file_id;
      const props = { name: 'n', nested: { a: 1 } };
      const a1 = await send(
        '/api/draw/add',
        {
          file_id: file,
          geometry: JSON.stringify(square(0, 0, 2)),
          properties: JSON.stringify(props),
          intent: 'roi',
        },
        me,
      );
      const a2 = await send(
        '/api/draw/add',
        { file_id: file, geometry: JSON.stringify(square(1, 1, 2)), to_history: true },
        me,
      );
      expect([a1.status, a2.status]).toEqual([200, 200]);
      const m = await send(
        '/api/draw/merge',
        { file_id: file, prop_id: a1.body.body.id, ids: [a1.body.body.id, a2.body.body.id] },
        me,
      );
      expect(m.status).toBe(200);
      const s = await send(
        '/api/draw/split',
        {
          file_id: file,
          split: JSON.stringify({
            type: 'LineString',
            coordinates: [
              [1.5, -1],
              [1.5, 4],
            ],
          }),
          ids: [m.body.body.ids[0]],
        },
        me,
      );
      expect(s.status).toBe(200);
      const g = await send('/api/files/getfile', { id: JSON.stringify([file]) }, me);
      expect(g.status).toBe(200);
      const fs = g.body.body.geojson.features.map((f: any) => ({
        props: { ...f.properties, _: undefined, uuid: undefined },
        intent: f.properties._.intent,
        area: Math.round(area(f.geometry)),
        v: vertices(f.geometry),
      }));
      const h = (await history(me, file)).map((x) => x.action_index);
      results.push({ fs, h, file: { ...g.body.body.file[0], id: 0, created_on: 0, updated_on: 0 } });
    }
    expect(results[1]).toEqual(results[0]);
  });
});

describe('concurrency', () => {
  it('20 concurrent adds to one file all end up in the latest snapshot', async () => {
    const file = await makeFile(me);
    const added = await Promise.all(
      Array.from({ length: 20 }, (_, i) => add(me, file, { type: 'Point', coordinates: [i, i] })),
    );
    const latest = await features(me, file);
    expect(ids(latest)).toEqual(added.map((a) => a.id).sort((a, b) => a - b));
    const h = await history(me, file);
    expect(h).toHaveLength(20);
    expect(h[0].history).toHaveLength(20);
    expect(new Set(latest.map((f) => f.properties._.level)).size).toBe(20);
  });
});
