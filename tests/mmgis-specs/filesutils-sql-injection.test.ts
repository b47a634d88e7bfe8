/**
 * MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/filesutils-sql-injection.spec.js`, ported (README.md):
 * `files/getfile` of file `'1'` with hostile `filters` and `timeProp` values, none of which may be a 500.
 * The spec skips nothing, so it is run as written (anonymous, where the file is refused) and, as MMGIS's
 * CI runs it with `AUTH=off`, with the suite's administrator session (`callers`), where the owner check is
 * passed and the query runs. Its eleven same-shaped cases are written as tables, each one test as there.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { callers, newRequestContext as contextAt } from './playwright.ts';

type Case = [string, Record<string, string>];

/** The spec's groups: each case's request is `{ id: '1', ...extra }`, its check no 500. */
const groups: [string, Case[]][] = [
  [
    'Filter field name validation',
    [
      [
        'rejects filter field names with SQL injection characters',
        { filters: "'; DROP TABLE users; --+= +string+test" },
      ],
      [
        'rejects filter field names with semicolons and quotes',
        { filters: 'name;DELETE FROM users+= +string+test' },
      ],
      ['rejects filter field names with parentheses', { filters: 'name()--+= +string+test' }],
    ],
  ],
  [
    'geometry.type filter injection',
    [
      [
        'handles malicious geometry.type filter value without server error',
        { filters: "geometry.type+= +string+Point'; DROP TABLE user_features; --" },
      ],
      [
        'handles geometry.type IN filter with injection attempt',
        { filters: "geometry.type+in+string+Point$LineString'; DROP TABLE users; --" },
      ],
      [
        'handles geometry.type != filter with injection attempt',
        { filters: "geometry.type+!=+string+Point' OR 1=1; --" },
      ],
    ],
  ],
  [
    'timeProp sanitization',
    [
      [
        'handles malicious timeProp without server error',
        { startTime: '1000000', endTime: '9999999999999', timeProp: "time'; DROP TABLE user_features; --" },
      ],
      [
        'handles timeProp with SQL OR injection',
        { startTime: '1000000', endTime: '9999999999999', timeProp: 'time OR 1=1; --' },
      ],
    ],
  ],
  [
    'Filter values with SQL injection attempts',
    [
      [
        'handles filter value with SQL UNION injection',
        { filters: "name+= +string+test' UNION SELECT * FROM users; --" },
      ],
      ['handles numeric filter with injection attempt', { filters: 'sol+> +number+1 OR 1=1; --' }],
      [
        'handles LIKE filter with injection attempt',
        { filters: "name+contains+string+%'; DROP TABLE users; --" },
      ],
    ],
  ],
];

describe.each(callers)('filesutils SQL injection prevention ($caller)', ({ session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  beforeAll(async () => {
    cookie = await session();
    // A file of the administrator's, so that on a fresh database file 1 exists (MMGIS's CI has files).
    if (cookie)
      await contextAt(baseURL, cookie).post('/api/files/make', {
        data: {
          file_name: `test_filesutils_${Date.now()}`,
          file_description: 'filesutils.spec',
          intent: 'all',
        },
      });
  });

  describe.each(groups)('%s', (_group, cases) => {
    it.for(cases)('%s', async ([, extra]) => {
      const response = await contextAt(baseURL, cookie).post('/api/files/getfile', {
        data: { id: '1', ...extra },
      });
      expect(response.status()).toBeLessThan(500);
    });
  });
});
