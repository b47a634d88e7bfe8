import { describe, expect, it } from 'vitest';
import { adminCookie, call, login, uniqueName } from '../helpers.ts';
import { type As, add, admin, features, history, makeFile, post } from './drawHelpers.ts';

/**
 * The attack: draw files were owned by a username string. An administrator removed `carol`, anyone
 * signed up a new `carol`, and the new account read and edited the old one's private files (and a removed
 * editor's name gave the new account the old one's editing rights). Files now belong to accounts
 * (docs/draw.md, "Ownership"): the new account inherits nothing, and the old files are owned by no one
 * until an administrator reassigns them.
 */
const pt = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y] });

async function account(username: string): Promise<As & { username: string }> {
  const password = 'pw-ownership-test';
  const su = await call('POST', '/api/users/signup', {
    body: { username, password },
    cookie: await adminCookie(),
  });
  expect(su.status, su.text).toBe(201);
  return { username, cookie: await login(username, password) };
}

async function removeUser(username: string): Promise<void> {
  const r = await call('POST', '/api/users/remove', { body: { username }, cookie: await adminCookie() });
  expect(r.status, r.text).toBe(200);
}

const status = async (path: string, body: unknown, as: As) => (await post(path, body, as)).status;

async function orphans(): Promise<any[]> {
  const r = await post('/api/files/orphans', {}, { cookie: await adminCookie() });
  expect(r.status, r.text).toBe(200);
  return r.body.body;
}

describe('a new account with a removed account’s name inherits nothing', () => {
  it('cannot list, read, change, draw in or rename keywords of the old private file', async () => {
    const name = uniqueName('carol');
    const oldCarol = await account(name);
    const file = await makeFile(oldCarol, { public: '0', file_description: 'secret ~#plans' });
    await add(oldCarol, file, pt(1, 1));
    const [before] = await history(oldCarol, file);
    expect((await post('/api/files/gethistory', { id: file }, oldCarol)).body.body[0].author).toBe(name);
    expect(before.history).toHaveLength(1);

    await removeUser(name);
    const newCarol = await account(name);

    const listed = (await post('/api/files/getfiles', {}, newCarol)).body.body;
    expect(listed.map((f: any) => f.id)).not.toContain(file);
    expect(await status('/api/files/getfile', { id: file }, newCarol)).toBe(403);
    expect(await status('/api/files/gethistory', { id: file }, newCarol)).toBe(403);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(2, 2) }, newCarol)).toBe(403);
    expect(await status('/api/files/change', { id: file, public: '1' }, newCarol)).toBe(403);
    expect(await status('/api/files/remove', { id: file }, newCarol)).toBe(403);
    const kw = await post(
      '/api/files/modifykeyword',
      { keyword: 'plans', type: 'tags', newKeyword: 'x' },
      newCarol,
    );
    expect(kw.status, kw.text).toBe(200);
    expect(kw.body.body.count).toBe(0);

    // Nothing changed: the file still has only the old account's feature, private, under its old name.
    expect(await features(admin(), file)).toHaveLength(1);
    const [row] = (await post('/api/files/getfile', { id: file }, admin())).body.body.file;
    expect(row).toMatchObject({ public: '0', file_description: 'secret ~#plans', file_owner: '' });
    // The history keeps no name for the removed author (the new account did not write it).
    expect((await post('/api/files/gethistory', { id: file }, admin())).body.body[0].author).toBeNull();
  });

  it('a removed editor’s name gives the new account no editing rights', async () => {
    const owner = await account(uniqueName('owner'));
    const editorName = uniqueName('dave');
    const oldDave = await account(editorName);
    const file = await makeFile(owner, { publicity_type: 'list_edit', public_editors: [editorName] });
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(1, 1) }, oldDave)).toBe(200);

    await removeUser(editorName);
    const newDave = await account(editorName);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(2, 2) }, newDave)).toBe(403);
    const [row] = (await post('/api/files/getfile', { id: file }, owner)).body.body.file;
    expect(row.public_editors).toEqual([]);
    expect(row.file_owner).toBe(owner.username);

    // Listing the new account again is an explicit grant by the owner.
    const ch = await post('/api/files/change', { id: file, public_editors: [editorName] }, owner);
    expect(ch.status, ch.text).toBe(200);
    expect(ch.body.body.public_editors).toEqual([editorName]);
    expect(await status('/api/draw/add', { file_id: file, geometry: pt(3, 3) }, newDave)).toBe(200);
  });

  it('an editor that names no user is a 400 naming the field', async () => {
    const owner = await account(uniqueName('owner'));
    const r = await post(
      '/api/files/make',
      { file_name: 'f', public_editors: [uniqueName('nobody')] },
      owner,
    );
    expect(r.status, r.text).toBe(400);
    expect(r.body).toEqual({ status: 'failure', message: expect.stringContaining("'public_editors'") });
  });
});

describe('a removed user’s files are owned by no one until an administrator reassigns them', () => {
  it('lists them to administrators only, with the former name, and reassigns them by account', async () => {
    const name = uniqueName('erin');
    const erin = await account(name);
    const privateFile = await makeFile(erin, { public: '0' });
    const publicFile = await makeFile(erin, { public: '1' });
    const stranger = await account(uniqueName('stranger'));
    expect((await orphans()).map((f) => f.id)).not.toContain(privateFile);

    await removeUser(name);
    const listed = (await orphans()).filter((f) => f.id === privateFile || f.id === publicFile);
    expect(listed).toHaveLength(2);
    for (const f of listed) {
      expect(f).toMatchObject({
        file_owner: '',
        former_owner: name,
        file_owner_group: null,
        is_master: false,
      });
    }
    expect((await orphans()).some((f) => f.is_master)).toBe(false);

    // Not to users; a public ownerless file stays readable, a private one is for administrators only.
    expect(await status('/api/files/orphans', {}, stranger)).toBe(403);
    expect(await status('/api/files/getfile', { id: publicFile }, stranger)).toBe(200);
    expect(await status('/api/files/getfile', { id: privateFile }, stranger)).toBe(403);
    expect(await status('/api/files/change', { id: publicFile, file_name: 'mine' }, stranger)).toBe(403);

    // Reassignment: not by users, not to a missing account, not of a master file.
    expect(
      await status('/api/files/reassign', { id: privateFile, username: stranger.username }, stranger),
    ).toBe(403);
    const cookie = await adminCookie();
    const missing = await post(
      '/api/files/reassign',
      { id: privateFile, username: uniqueName('nobody') },
      { cookie },
    );
    expect(missing.status, missing.text).toBe(404);
    expect(await status('/api/files/reassign', { username: stranger.username }, { cookie })).toBe(400);
    expect(await status('/api/files/reassign', { id: 1, username: stranger.username }, { cookie })).toBe(403);

    const r = await post('/api/files/reassign', { id: privateFile, username: stranger.username }, { cookie });
    expect(r.status, r.text).toBe(200);
    expect(r.body.body).toMatchObject({
      id: privateFile,
      file_owner: stranger.username,
      file_owner_group: null,
    });
    expect((await orphans()).map((f) => f.id)).not.toContain(privateFile);
    expect(await status('/api/files/getfile', { id: privateFile }, stranger)).toBe(200);
    expect(await status('/api/draw/add', { file_id: privateFile, geometry: pt(1, 1) }, stranger)).toBe(200);
  });

  it('master files still answer as owned by "group"', async () => {
    const r = await post('/api/files/getfiles', {}, admin());
    const masters = r.body.body.filter((f: any) => f.is_master);
    expect(masters).toHaveLength(6);
    for (const m of masters)
      expect(m).toMatchObject({ file_owner: 'group', file_owner_group: ['mmgis-group'] });
  });
});
