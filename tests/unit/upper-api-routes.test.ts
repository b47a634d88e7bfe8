import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { addUpperRoutes } = require('../../serverless/plugins/upper-api-routes.cjs');

describe('upper-api-routes plugin (docs/contract.md, section 1)', () => {
  it('serverless offline: adds the /API twin of every api/ http event, in either notation, and nothing else', () => {
    const functions: Record<string, any> = {
      login: { events: [{ http: { path: 'api/users/login', method: 'post', cors: true } }] },
      get: {
        events: [
          { http: { path: '/api/geodatasets/get/{layer}', method: 'get', cors: true } },
          { http: 'POST api/geodatasets/get' },
        ],
      },
      web: { events: [{ http: { path: '/', method: 'get' } }, { http: { path: 'apis/x', method: 'get' } }] },
      job: { events: [{ schedule: 'rate(1 hour)' }] },
      ws: { events: [{ websocket: { route: '$connect' } }] },
      bare: {},
    };
    expect(addUpperRoutes(functions)).toBe(3);
    expect(functions.login.events[1]).toEqual({
      http: { path: 'API/users/login', method: 'post', cors: true },
    });
    expect(functions.get.events.slice(2)).toEqual([
      { http: { path: 'API/geodatasets/get/{layer}', method: 'get', cors: true } },
      { http: { method: 'POST', path: 'API/geodatasets/get' } },
    ]);
    expect(functions.web.events).toHaveLength(2);
    expect(functions.job.events).toHaveLength(1);
    expect(functions.ws.events).toHaveLength(1);
    // Running twice (a second plugin lifecycle) adds nothing more.
    expect(addUpperRoutes(functions)).toBe(0);
    expect(functions.login.events).toHaveLength(2);
  });
});
