import { afterEach, describe, expect, it } from 'vitest';
import { responseUrlSeconds } from '#lib/answers/largeResponse.ts';

describe('the 303 of an oversized answer outlives the gateway cache', () => {
  afterEach(() => {
    delete process.env.TILE_MAX_AGE;
    delete process.env.RESPONSE_URL_SECONDS;
  });

  it('presigns for at least the cache TTL (TILE_MAX_AGE) plus a minute', () => {
    expect(responseUrlSeconds()).toBe(300);
    process.env.TILE_MAX_AGE = '3600';
    expect(responseUrlSeconds()).toBe(3660);
    process.env.RESPONSE_URL_SECONDS = '7200';
    expect(responseUrlSeconds()).toBe(7200);
  });
});
