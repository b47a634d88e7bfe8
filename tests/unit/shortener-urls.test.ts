import { describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { assertShortenableUrl, redirectTarget, type Site } from '#lib/shortener/shortener.ts';

const site: Site = { host: 'maps.example:8443', origins: ['https://partner.example'] };

describe('assertShortenableUrl', () => {
  it.each([
    ['?mission=M&on=a,b', 'the map client’s own address'],
    ['/?mission=M', 'a path'],
    ['/configure', 'another page of the site'],
    ['http://maps.example:8443/?mission=M', 'this site, absolute'],
    ['https://MAPS.example:8443/x', 'this site, host in another case'],
    ['https://partner.example/map', 'a CORS_ORIGINS origin'],
  ])('keeps %j (%s) as given', (url) => {
    expect(assertShortenableUrl(url, site)).toBe(url);
  });

  it.each([
    ['https://evil.example/?mission=M'],
    ['http://maps.example/?mission=M'], // another port is another site
    ['https://partner.example.evil/'],
    ['//evil.example/x'],
    ['/\\evil.example/x'],
    ['javascript:alert(1)'],
    ['ftp://maps.example:8443/x'],
    ['http://u:p@maps.example:8443/'],
    [''],
    ['mission=M'],
    ['   '],
  ])('refuses %j with 400 naming url', (url) => {
    expect(() => assertShortenableUrl(url, site)).toThrow(HttpError);
    try {
      assertShortenableUrl(url, site);
    } catch (e) {
      expect((e as HttpError).statusCode).toBe(400);
      expect((e as Error).message).toMatch(/url/);
    }
  });

  it('without a Host header accepts only queries, paths and CORS_ORIGINS', () => {
    const bare: Site = { host: undefined, origins: [] };
    expect(assertShortenableUrl('?m=1', bare)).toBe('?m=1');
    expect(() => assertShortenableUrl('http://maps.example:8443/', bare)).toThrow(/url/);
  });
});

describe('redirectTarget', () => {
  it.each([
    ['?mission=M&x=1', '/?mission=M&x=1'],
    ['/?mission=M', '/?mission=M'],
    ['/configure#tokens', '/configure#tokens'],
    ['http://maps.example:8443/map?mission=M#h', '/map?mission=M#h'],
    ['https://partner.example/map?x=1', 'https://partner.example/map?x=1'],
    ['https://evil.example/x', undefined],
    ['//evil.example/x', undefined],
  ])('%j → %j', (stored, target) => {
    expect(redirectTarget(stored, site)).toBe(target);
  });
});
