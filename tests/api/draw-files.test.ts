import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrlLocal, call } from '../helpers.ts';
import {
  type As,
  add,
  admin,
  features,
  history,
  makeFile,
  newUser,
  post,
  postForm,
  square,
} from './drawHelpers.ts';

let owner: As & { username: string };
let other: As & { username: string };
let editor: As & { username: string };
beforeAll(async () => {
  [owner, other, editor] = await Promise.all([newUser(), newUser(), newUser()]);
});

const status = async (path: string, body: unknown, as: As) => (await post(path, body, as)).status;
const pt = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y] });

describe('access', () => {
  it('applies the read, feature and file rules for owner, other user, editors and admin', async () => {
    const file = await makeFile(owner, { public: '0' });
    await add(owner, file, pt(0, 0));
    // private: only the owner and admins
    expect(await status('/api/files/getfile', { id: file }, other)).toBe(403);
    expect(await status('/api/files/gethistory', { id: file }, other)).toBe(403);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(1, 1) }, other)).toBe(403);
    expect(await status('/api/files/getfile', { id: file }, admin())).toBe(200);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(1, 1) }, admin())).toBe(200);
    expect(await status('/api/files/getfile', { id: 99999999 }, other)).toBe(404);

    // public read_only: anyone reads, nobody else writes
    const ch = await post('/api/files/change', { id: file, public: 1, publicity_type: 'read_only' }, owner);
    expect(ch.status).toBe(200);
    expect(ch.body.body).toMatchObject({ id: file, public: '1', publicity_type: 'read_only' });
    expect(await status('/api/files/getfile', { id: file }, other)).toBe(200);
    expect(await status('/api/files/gethistory', { id: file }, other)).toBe(200);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(2, 2) }, other)).toBe(403);
    const listed = (await post('/api/files/getfiles', {}, other)).body.body.map((f: any) => f.id);
    expect(listed).toContain(file);

    // list_edit: only listed editors (comma string accepted)
    await post(
      '/api/files/change',
      { id: file, publicity_type: 'list_edit', public_editors: `${editor.username}` },
      owner,
    );
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(3, 3) }, editor)).toBe(200);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(3, 3) }, other)).toBe(403);
    // list_edit but not public: editors lose write access
    await post('/api/files/change', { id: file, public: '0' }, owner);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(3, 3) }, editor)).toBe(403);

    // all_edit: anyone edits features, only owner/admin change the file
    await post('/api/files/change', { id: file, public: '1', publicity_type: 'all_edit' }, owner);
    const a = await add(other, file, pt(4, 4));
    expect(
      await status('/api/draw/edit', { file_id: file, feature_id: a.id, geometry: pt(5, 5) }, other),
    ).toBe(200);
    expect(await status('/api/files/change', { id: file, file_name: 'mine now' }, other)).toBe(403);
    expect(await status('/api/files/remove', { id: file }, other)).toBe(403);
    expect(await status('/api/files/change', { id: file, file_name: 'renamed by admin' }, admin())).toBe(200);

    // removed (hidden): 404 to others, still there for the owner, not listed; restore brings it back
    expect(await status('/api/files/remove', { id: file }, owner)).toBe(200);
    expect(await status('/api/files/getfile', { id: file }, other)).toBe(404);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(1, 1) }, other)).toBe(404);
    expect(await status('/api/files/getfile', { id: file }, owner)).toBe(200);
    expect((await post('/api/files/getfiles', {}, owner)).body.body.map((f: any) => f.id)).not.toContain(
      file,
    );
    expect(await status('/api/files/restore', { id: file }, owner)).toBe(200);
    expect(await status('/api/files/getfile', { id: file }, other)).toBe(200);
  });

  it('applies the same rules under AUTH=local', async () => {
    const base = apiUrlLocal();
    const [o, u] = await Promise.all([newUser(base), newUser(base)]);
    const file = await makeFile(o, { public: '0' });
    await add(o, file, pt(0, 0));
    expect(await status('/api/files/getfile', { id: file }, u)).toBe(403);
    expect(await status('/api/files/getfile', { id: file }, o)).toBe(200);
    await post('/api/files/change', { id: file, public: '1', publicity_type: 'all_edit' }, o);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(1, 1) }, u)).toBe(200);
    expect((await call('POST', '/api/files/getfile', { body: { id: file }, base })).status).toBe(401);
  });

  it('lists the six master files for everyone and refuses to change them', async () => {
    const files = (await post('/api/files/getfiles', {}, other)).body.body;
    const masters = files.filter((f: any) => f.is_master);
    // owned by "group" of the lead group, as the established server answers them (its map client reads
    // every file's owner as a string)
    const g = ['mmgis-group'];
    expect(
      masters.map((f: any) => [f.file_name, f.intent, f.file_owner, f.file_owner_group, f.public]),
    ).toEqual([
      ['ROI', 'roi', 'group', g, '1'],
      ['CAMPAIGN', 'campaign', 'group', g, '1'],
      ['CAMPSITE', 'campsite', 'group', g, '1'],
      ['TRAIL', 'trail', 'group', g, '1'],
      ['SIGNPOST', 'signpost', 'group', g, '1'],
      ['ALL', 'all', 'group', g, '1'],
    ]);
    for (const f of files.filter((x: any) => !x.is_master)) {
      expect(typeof f.file_owner).toBe('string');
      expect(f.file_owner_group).toBeNull();
    }
    // the same owner in getfile's file rows
    const one = await post('/api/files/getfile', { id: masters[0].id }, other);
    expect(one.body.body.file[0]).toMatchObject({ file_owner: 'group', file_owner_group: g });
    const ids = files.map((f: any) => f.id);
    expect([...ids].sort((a: number, b: number) => a - b)).toEqual(ids);
    for (const path of ['/api/files/change', '/api/files/remove', '/api/files/restore']) {
      expect(await status(path, { id: masters[0].id, file_name: 'x' }, admin())).toBe(403);
    }
    expect(await status('/api/draw/add', { file_id: masters[0].id, geometry: pt(0, 0) }, other)).toBe(403);
  });
});

describe('files', () => {
  it('makes a file from a FeatureCollection, reads several files at once, and validates', async () => {
    const geojson = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'p' }, geometry: square(0, 0, 1) },
        { type: 'Feature', properties: null, geometry: pt(3, 3) },
      ],
    };
    const made = await post(
      '/api/files/make',
      { file_name: 'fc', intent: 'campaign', template: { a: 1 }, geojson: JSON.stringify(geojson) },
      owner,
    );
    expect(made.status).toBe(200);
    const f1 = made.body.body.file_id;
    const f2 = await makeFile(owner);
    await add(owner, f2, pt(9, 9));
    const h = await history(owner, f1);
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({ action_index: 0 });
    expect(h[0].history).toHaveLength(2);
    const both = await post('/api/files/getfile', { id: `[${f1},${f2}]` }, owner);
    expect(both.status).toBe(200);
    expect(both.body.body.file.map((f: any) => f.id)).toEqual([f1, f2]);
    expect(both.body.body.file[0]).toMatchObject({
      public: '1',
      publicity_type: 'read_only',
      template: { a: 1 },
      file_owner: owner.username,
    });
    const fs = both.body.body.geojson.features;
    expect(fs).toHaveLength(3);
    expect(fs[0].properties).toMatchObject({ name: 'p', _: { level: 0, intent: 'campaign', file_id: f1 } });

    const bad: [string, unknown, RegExp][] = [
      ['/api/files/make', {}, /file_name/],
      ['/api/files/make', { file_name: 'x', intent: 'nope' }, /intent/],
      [
        '/api/files/make',
        {
          file_name: 'x',
          geojson: { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: pt(500, 0) }] },
        },
        /geojson.features\[0\].geometry/,
      ],
      ['/api/files/getfile', { id: 'abc' }, /id/],
      ['/api/files/change', { id: f1, public: 'maybe' }, /public/],
      ['/api/files/change', { id: f1, publicity_type: 'everyone' }, /publicity_type/],
      ['/api/files/modifykeyword', { keyword: 'a b', type: 'tags' }, /keyword/],
      ['/api/files/modifykeyword', { keyword: 'a', type: 'colors' }, /type/],
    ];
    for (const [path, body, msg] of bad) {
      const r = await post(path, body, owner);
      expect([path, r.status]).toEqual([path, 400]);
      expect(r.body.message).toMatch(msg);
    }
  });

  it("takes jQuery's `template=` and `geojson=` (a null in a form) as none, in make and change", async () => {
    const made = await postForm(
      '/api/files/make',
      { file_name: 'no template', intent: 'all', template: '', geojson: '' },
      owner,
    );
    expect(made.status).toBe(200);
    const id = made.body.body.file_id;
    const file = await post('/api/files/getfile', { id }, owner);
    expect(file.body.body.file[0]).toMatchObject({ file_name: 'no template', template: null });
    expect(file.body.body.geojson.features).toEqual([]);
    const withT = await post('/api/files/change', { id, template: { a: 1 } }, owner);
    expect(withT.body.body.template).toEqual({ a: 1 });
    const cleared = await postForm('/api/files/change', { id, template: '' }, owner);
    expect(cleared.status).toBe(200);
    expect(cleared.body.body.template).toBeNull();
    // still a 400 for a template that is not JSON
    expect((await postForm('/api/files/make', { file_name: 'x', template: '{nope' }, owner)).status).toBe(
      400,
    );
  });

  it("reads jQuery's empty `time=` (the Draw tool's `time: null`) and a JSON null as now", async () => {
    const file = await makeFile(owner);
    await add(owner, file, pt(1, 2));
    const form = await postForm('/api/files/getfile', { id: String(file), time: '' }, owner);
    expect(form.status).toBe(200);
    expect(form.body.body.geojson.features).toHaveLength(1);
    const json = await post('/api/files/getfile', { id: file, time: null }, owner);
    expect(json.status).toBe(200);
    expect(json.body.body.geojson.features).toHaveLength(1);
    // A time that is given must still be one.
    const bad = await postForm('/api/files/getfile', { id: String(file), time: 'soon' }, owner);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/time/);
  });

  it('renames and removes keywords in the caller own files only', async () => {
    const mine = await makeFile(owner, { file_description: 'plan ~#alpha ~@box ~#alphabet' });
    const theirs = await makeFile(other, { file_description: 'x ~#alpha' });
    const r = await post(
      '/api/files/modifykeyword',
      { keyword: 'alpha', type: 'tags', newKeyword: 'beta' },
      owner,
    );
    expect(r.status).toBe(200);
    expect(r.body.body.count).toBe(1);
    const read = async (id: number, as: As) =>
      (await post('/api/files/getfile', { id }, as)).body.body.file[0].file_description;
    expect(await read(mine, owner)).toBe('plan ~#beta ~@box ~#alphabet');
    expect(await read(theirs, other)).toBe('x ~#alpha');
    const rm = await post(
      '/api/files/modifykeyword',
      { keyword: 'box', type: 'folders', newKeyword: null },
      owner,
    );
    expect(rm.body.body.count).toBe(1);
    expect(await read(mine, owner)).toBe('plan ~#beta ~#alphabet');
  });
});

describe('compile and publish', () => {
  it('builds the hierarchy, reports issues, refuses to publish with them, publishes without', async () => {
    const masters = (await post('/api/files/getfiles', {}, admin())).body.body.filter(
      (f: any) => f.is_master,
    );
    const m = Object.fromEntries(masters.map((f: any) => [f.intent, f.id]));
    const roi = await add(admin(), m.roi, square(0, 0, 10), { intent: 'roi', properties: { name: 'R' } });
    const camp = await add(admin(), m.campaign, square(1, 1, 4), {
      intent: 'campaign',
      properties: { name: 'C' },
    });
    const site = await add(admin(), m.campsite, square(2, 2, 1), {
      intent: 'campsite',
      properties: { name: 'S' },
    });
    // A signpost on the campsite's edge counts as inside (within 5e-6 degrees).
    const sign = await add(admin(), m.signpost, pt(3 + 3e-6, 2.5), {
      intent: 'signpost',
      properties: { name: 'P' },
    });
    const orphan = await add(admin(), m.campaign, square(50, 50, 1), {
      intent: 'campaign',
      properties: { name: 'C' },
    });

    const c1 = await call('GET', '/api/files/compile', { token: admin().token });
    expect(c1.status).toBe(200);
    const { hierarchy, issues, changes } = c1.body.body;
    expect(changes).toBe(false);
    expect(hierarchy).toEqual([
      {
        id: roi.id,
        intent: 'roi',
        name: 'R',
        uuid: roi.uuid,
        children: [
          {
            id: camp.id,
            intent: 'campaign',
            name: 'C',
            uuid: camp.uuid,
            children: [
              {
                id: site.id,
                intent: 'campsite',
                name: 'S',
                uuid: site.uuid,
                children: [{ id: sign.id, intent: 'signpost', name: 'P', uuid: sign.uuid, children: [] }],
              },
            ],
          },
        ],
      },
    ]);
    expect(issues.map((i: any) => i.antecedent.id).sort()).toEqual([orphan.id, orphan.id]);
    expect(issues.map((i: any) => i.message).join(' ')).toMatch(/inside any roi/);
    expect(issues.map((i: any) => i.message).join(' ')).toMatch(/same name/);

    expect(await status('/api/files/publish', {}, other)).toBe(403);
    const refused = await post('/api/files/publish', {}, admin());
    expect(refused.status).toBe(409);
    expect(refused.body.issues).toHaveLength(2);

    expect(await status('/api/draw/remove', { file_id: m.campaign, id: orphan.id }, admin())).toBe(200);
    const ok = await post('/api/files/publish', {}, admin());
    expect(ok.status).toBe(200);
    for (const id of Object.values(m) as number[]) {
      expect((await history(admin(), id))[0]).toMatchObject({ action_index: 4, message: 'Publish' });
    }

    const layer = await post('/api/files/getfile', { quick_published: true }, other);
    expect(layer.status).toBe(200);
    expect(layer.body.body.features.map((f: any) => f.properties.name).sort()).toEqual(['C', 'P', 'R', 'S']);
    const rois = await post('/api/files/getfile', { quick_published: true, intent: 'roi' }, other);
    expect(rois.body.body.features.map((f: any) => f.properties._.id)).toEqual([roi.id]);

    // After publishing: no changes; an edit shows up as changed; published=true still reads the publish.
    expect((await call('GET', '/api/files/compile', { token: admin().token })).body.body.changes).toEqual({
      added: [],
      removed: [],
      changed: [],
    });
    const e = await post(
      '/api/draw/edit',
      { file_id: m.roi, feature_id: roi.id, geometry: square(0, 0, 11) },
      admin(),
    );
    expect(e.status).toBe(200);
    const c2 = await call('GET', '/api/files/compile?verbose=true', { token: admin().token });
    expect(c2.body.body.changes).toEqual({ added: [], removed: [], changed: [roi.uuid] });
    expect(c2.body.body.features.features).toHaveLength(4);
    const pub = await post('/api/files/getfile', { id: m.roi, published: true }, other);
    expect(pub.body.body.geojson.features.map((f: any) => f.properties._.id)).toEqual([roi.id]);
    expect(await features(other, m.roi)).toHaveLength(1);
    expect((await features(other, m.roi))[0].properties._.id).toBe(e.body.body.id);
  });
});
