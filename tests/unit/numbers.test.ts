import { describe, expect, it } from 'vitest';
import { numberLiteral } from '#lib/geodatasets/numeric.ts';
import { toInteger, toNumber } from '#lib/numbers.ts';

describe('toNumber (a number, or a string holding one)', () => {
  it.each([
    [12, 12],
    [' 12 ', 12],
    ['1e3', 1000],
    ['-0.5', -0.5],
    ['', Number.NaN],
    ['  ', Number.NaN],
    ['12abc', Number.NaN],
    [null, Number.NaN],
    [true, Number.NaN],
    [[1], Number.NaN],
  ])('toNumber(%j) = %s', (v, want) => expect(toNumber(v)).toBe(want));
});

describe('toInteger (a number, or a string of digits)', () => {
  it.each([
    [7, 7],
    [' 42 ', 42],
    ['-3', -3],
    ['123456789012345', 123456789012345],
    ['1234567890123456', Number.NaN],
    ['1e3', Number.NaN],
    ['1.5', Number.NaN],
    ['', Number.NaN],
    [undefined, Number.NaN],
  ])('toInteger(%j) = %s', (v, want) => expect(toInteger(v)).toBe(want));
});

describe('numberLiteral (a filter value under the numeric rule)', () => {
  it.each([
    ['12', 12],
    [' -3.5e2 ', -350],
    ['.5', 0.5],
    ['5.', 5],
    ['+5', undefined],
    ['0x10', undefined],
    ['Infinity', undefined],
    ['1e999', undefined],
    ['12abc', undefined],
    ['', undefined],
  ])('numberLiteral(%j) = %j', (v, want) => expect(numberLiteral(v)).toBe(want));
});
