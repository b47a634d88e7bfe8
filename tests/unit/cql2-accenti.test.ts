import { describe, expect, it } from 'vitest';
import { accenti, marksPattern } from '#lib/cql2/accenti.ts';

describe('ACCENTI folding (lib/cql2/accenti.ts)', () => {
  it('strips accents and diacritics, keeps case and the Japanese voicing marks', () => {
    expect(accenti('Chișinău')).toBe('Chisinau');
    expect(accenti('CHIȘINĂU')).toBe('CHISINAU');
    expect(accenti('papá')).toBe('papa');
    expect(accenti('Ångström')).toBe('Angstrom');
    expect(accenti('e\u0301')).toBe('e');
    expect(accenti('が')).toBe('が');
    expect(accenti('は\u3099')).toBe('ば');
    expect(accenti('Zürich, Kraków, Đà Nẵng')).toBe('Zurich, Krakow, Đa Nang');
  });

  it('removes every nonspacing mark but U+3099 and U+309A', () => {
    const re = new RegExp(marksPattern(), 'u');
    expect(re.test('\u0301')).toBe(true);
    expect(re.test('\u{1E944}')).toBe(true);
    expect(re.test('\u3099')).toBe(false);
    expect(re.test('a')).toBe(false);
  });
});
