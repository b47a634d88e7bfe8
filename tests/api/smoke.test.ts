import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';

describe('service', () => {
  it('answers GET /api/configure/missions with a list', async () => {
    const res = await call('GET', '/api/configure/missions');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(Array.isArray(res.body.missions)).toBe(true);
  });
});
