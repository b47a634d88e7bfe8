import { afterEach, describe, expect, it } from 'vitest';
import { envNumber, envText } from '#lib/settings.ts';

const NAME = 'SETTINGS_TEST_VALUE';

describe('lib/settings.ts', () => {
  afterEach(() => {
    delete process.env[NAME];
  });

  it('envText: unset and empty are undefined', () => {
    expect(envText(NAME)).toBeUndefined();
    process.env[NAME] = '';
    expect(envText(NAME)).toBeUndefined();
    process.env[NAME] = 'x';
    expect(envText(NAME)).toBe('x');
  });

  it.each([
    [undefined, {}, 7],
    ['', {}, 7],
    ['12.5', {}, 12.5],
    ['12.5', { integer: true }, 12],
    ['0', {}, 7],
    ['0', { zero: true }, 0],
    ['-3', { zero: true }, 7],
    ['abc', {}, 7],
    ['Infinity', {}, 7],
    ['5000', { integer: true, max: 4096 }, 4096],
  ])('envNumber(%j, %j) = %j (fallback 7)', (text, options, want) => {
    if (text !== undefined) process.env[NAME] = text;
    expect(envNumber(NAME, 7, options)).toBe(want);
  });
});
