import { describe, expect, it } from 'vitest';
import { privateRange, RefusedTarget, resolveTarget } from '#lib/webhooks/outbound.ts';
import { buildBody, buildUrl, fileVariables } from '#lib/webhooks/template.ts';

describe('webhook targets', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['224.0.0.1', 'multicast'],
  ])('%s is refused (%s)', (address, range) => {
    expect(privateRange(address)).toBe(range);
  });

  // IPv6 forms that embed a loopback or private IPv4 address (the IPv4-compatible ::/96 once passed).
  it.each([
    ['::7f00:1', /reserved/],
    ['::127.0.0.1', /reserved|loopback/],
    ['::a00:1', /reserved/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:0:7f00:1', /rfc6145/],
    ['64:ff9b::7f00:1', /rfc6052/],
    ['2002:7f00:1::', /6to4/],
    ['2001::1', /teredo/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::', /unspecified/],
  ])('%s is refused', (address, range) => {
    expect(privateRange(address)).toMatch(range);
  });

  it.each(['8.8.8.8', '2606:4700:4700::1111'])('%s is a public address', (address) => {
    expect(privateRange(address)).toBeNull();
  });

  it('checks every address a name resolves to, and the scheme', async () => {
    await expect(resolveTarget('http://localhost:9/x', false)).rejects.toThrow(RefusedTarget);
    await expect(resolveTarget('http://[::1]/x', false)).rejects.toThrow(/loopback/);
    await expect(resolveTarget('http://[::7f00:1]/x', false)).rejects.toThrow(/reserved/);
    await expect(resolveTarget('file:///etc/passwd', false)).rejects.toThrow(/http and https/);
    await expect(resolveTarget('http://127.0.0.1:9/x', true)).resolves.toMatchObject({
      address: '127.0.0.1',
    });
  });
});

describe('webhook templates', () => {
  const vars = fileVariables(
    { id: 7, file_name: 'a b/c', file_description: 'Hi ~#t1 ~@f1 ~^e1', file_owner: 'me' },
    { type: 'FeatureCollection', features: [] },
  );

  it('derives the injectable variables of a file', () => {
    expect(vars).toMatchObject({
      file_id: 7,
      tags: ['t1'],
      folders: ['f1'],
      efolders: ['e1'],
      file_description: 'Hi',
      raw_file_description: 'Hi ~#t1 ~@f1 ~^e1',
    });
  });

  it('replaces whole top-level body values and URL-encodes URL variables', () => {
    expect(buildBody({ id: '{file_id}', g: 'x {geojson} y', n: 3, s: 'plain' }, vars)).toEqual({
      id: 7,
      g: { type: 'FeatureCollection', features: [] },
      n: 3,
      s: 'plain',
    });
    expect(buildUrl('https://h.example/{file_id}/{file_name}?t={tags}', vars)).toBe(
      `https://h.example/7/a%20b%2Fc?t=${encodeURIComponent('["t1"]')}`,
    );
  });
});
