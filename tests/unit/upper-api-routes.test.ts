import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { addUpperRoutes, addUpperTemplate } = require('../../serverless/plugins/upper-api-routes.cjs');

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

  it('serverless package: copies the compiled /api tree and its methods under /API', () => {
    const rest = { Ref: 'ApiGatewayRestApi' };
    const resource = (parent: object, part: string) => ({
      Type: 'AWS::ApiGateway::Resource',
      Properties: { ParentId: parent, PathPart: part, RestApiId: rest },
    });
    const method = (resourceId: string, verb: string) => ({
      Type: 'AWS::ApiGateway::Method',
      Properties: { HttpMethod: verb, ResourceId: { Ref: resourceId }, Integration: { Uri: 'fn' } },
      DependsOn: ['FnPermission'],
    });
    const root = { 'Fn::GetAtt': ['ApiGatewayRestApi', 'RootResourceId'] };
    const resources: Record<string, any> = {
      ApiGatewayResourceApi: resource(root, 'api'),
      ApiGatewayResourceApiUsers: resource({ Ref: 'ApiGatewayResourceApi' }, 'users'),
      ApiGatewayResourceApiUsersLogin: resource({ Ref: 'ApiGatewayResourceApiUsers' }, 'login'),
      ApiGatewayResourceAssets: resource(root, 'assets'),
      ApiGatewayMethodApiUsersLoginPost: method('ApiGatewayResourceApiUsersLogin', 'POST'),
      ApiGatewayMethodApiUsersLoginOptions: method('ApiGatewayResourceApiUsersLogin', 'OPTIONS'),
      ApiGatewayMethodAssetsGet: method('ApiGatewayResourceAssets', 'GET'),
      Deployment: {
        Type: 'AWS::ApiGateway::Deployment',
        DependsOn: [
          'ApiGatewayMethodApiUsersLoginPost',
          'ApiGatewayMethodApiUsersLoginOptions',
          'ApiGatewayMethodAssetsGet',
        ],
      },
    };
    expect(addUpperTemplate(resources)).toBe(2);
    expect(resources.ApiGatewayResourceUpperApi).toEqual(resource(root, 'API'));
    expect(resources.ApiGatewayResourceUpperApiUsersLogin).toEqual(
      resource({ Ref: 'ApiGatewayResourceUpperApiUsers' }, 'login'),
    );
    expect(resources.ApiGatewayMethodUpperApiUsersLoginPost).toEqual(
      method('ApiGatewayResourceUpperApiUsersLogin', 'POST'),
    );
    expect(resources.ApiGatewayMethodUpperApiUsersLoginOptions).toBeDefined();
    expect(resources.ApiGatewayResourceUpperAssets).toBeUndefined();
    expect(resources.Deployment.DependsOn).toEqual([
      'ApiGatewayMethodApiUsersLoginPost',
      'ApiGatewayMethodApiUsersLoginOptions',
      'ApiGatewayMethodAssetsGet',
      'ApiGatewayMethodUpperApiUsersLoginPost',
      'ApiGatewayMethodUpperApiUsersLoginOptions',
    ]);
    // The originals are untouched; a second run adds nothing.
    expect(resources.ApiGatewayMethodApiUsersLoginPost).toEqual(
      method('ApiGatewayResourceApiUsersLogin', 'POST'),
    );
    expect(addUpperTemplate(resources)).toBe(0);
    expect(addUpperTemplate({})).toBe(0);
  });
});
