import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUCKET_KEYS } from '#lib/web/mmgis/build.ts';
import { resolveText } from '../fixtures/awsDeployRules.ts';
import { flatResources } from '../fixtures/cfnTemplates.ts';
import { DATA_API_PARAMS, DB_ENV, PRESETS, type Preset } from '../fixtures/packagePresets.ts';
import { packagedStacks } from '../fixtures/packageService.ts';

/**
 * Deployed, the page functions (`/` and `/configure-beta`) render MMGIS's pages from the templates the
 * operator synced to the site bucket (docs/mission-site.md, "Deployed"): the front door sets
 * MMGIS_CLIENT_BUCKET to its site bucket (serverless/plugins/frontDoorOrigins.cjs) and their role may
 * s3:GetObject exactly the template keys, nothing else of S3 (serverless/plugins/function-roles.cjs).
 */

const require = createRequire(import.meta.url);
const { SITE_PAGE_KEYS } = require('../../serverless/plugins/frontDoorOrigins.cjs');
const { applyRoles } = require('../../serverless/plugins/function-roles.cjs');

const presets: Record<string, Preset> = {
  local: PRESETS.local,
  'data-api': PRESETS['data-api'],
  'data-api, no front door': {
    params: [...DATA_API_PARAMS, 'frontDoor=false'],
    env: DB_ENV,
    templateOnly: true,
  },
};
const PAGE_FUNCTIONS = ['WebServeLambdaFunction', 'MmgisClientLambdaFunction'];

const stacksOf = packagedStacks(presets, 'sls-mmgis-pages-');

/** Every statement a function's role holds: its own policies and the AWS::IAM::Policy resources attached. */
function statementsOf(resources: Record<string, any>, fnId: string): any[] {
  const role = resources[fnId].Properties.Role['Fn::GetAtt'][0];
  const own = resources[role].Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement);
  const attached = Object.values<any>(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => (r.Properties.Roles ?? []).some((x: any) => x?.Ref === role))
    .flatMap((r) => r.Properties.PolicyDocument.Statement);
  return [...own, ...attached];
}
const s3Statements = (statements: any[]) =>
  statements.filter((s) => [].concat(s.Action).some((a: string) => String(a).startsWith('s3:')));

it('the plugin reads the keys the page functions read', () => {
  expect(SITE_PAGE_KEYS).toEqual([...BUCKET_KEYS]);
});

describe.each(['local', 'data-api'])('the %s package (front door)', (name) => {
  const all = () => flatResources(stacksOf[name]);

  it('gives the page functions the site bucket as MMGIS_CLIENT_BUCKET', () => {
    for (const id of PAGE_FUNCTIONS) {
      const vars = all()[id].Properties.Environment.Variables;
      expect(resolveText(vars.MMGIS_CLIENT_BUCKET), id).toBe('<FrontDoorSiteBucket>');
      expect(vars.MMGIS_CLIENT_DIR, id).toBe('');
    }
    const others = Object.entries<any>(all()).filter(
      ([id, r]) => r.Type === 'AWS::Lambda::Function' && !PAGE_FUNCTIONS.includes(id),
    );
    for (const [id, r] of others)
      expect(r.Properties.Environment?.Variables?.MMGIS_CLIENT_BUCKET, id).toBeUndefined();
  });

  it("lets the page functions' role s3:GetObject the template keys of the site bucket, and nothing else of S3", () => {
    for (const id of PAGE_FUNCTIONS) {
      const s3 = s3Statements(statementsOf(all(), id));
      expect(s3, id).toHaveLength(1);
      expect(s3[0].Effect).toBe('Allow');
      expect([].concat(s3[0].Action)).toEqual(['s3:GetObject']);
      expect([].concat(s3[0].Resource).map(resolveText)).toEqual(
        BUCKET_KEYS.map((k) => `arn:aws:s3:::<FrontDoorSiteBucket>/${k}`),
      );
    }
  });

  it('gives the template keys to no role whose bundle does not read them, and takes nothing from the others', () => {
    const text = (id: string) => JSON.stringify(statementsOf(all(), id));
    expect(text('MissionsFileLambdaFunction')).not.toContain('MmgisSitePages');
    expect(text('MissionsFileLambdaFunction')).toContain('s3:GetObject');
    // ogcApi's bundle holds every handler, the page functions' too: it keeps its own S3 access.
    expect(text('OgcApiLambdaFunction')).toMatch(/s3:PutObject/);
  });
});

it('without the front door: no site bucket, MMGIS_CLIENT_BUCKET left empty, no S3 for the page functions', () => {
  const all = flatResources(stacksOf['data-api, no front door']);
  expect(all.FrontDoorSiteBucket).toBeUndefined();
  for (const id of PAGE_FUNCTIONS) {
    expect(all[id].Properties.Environment.Variables.MMGIS_CLIENT_BUCKET, id).toBe('');
    expect(s3Statements(statementsOf(all, id)), id).toEqual([]);
  }
});

describe('function-roles: the sitePages capability', () => {
  const base = { Effect: 'Allow', Action: ['logs:PutLogEvents'], Resource: '*' };
  const pages = { Sid: 'MmgisSitePages', Effect: 'Allow', Action: 's3:GetObject', Resource: 'site/*' };
  const data = { Effect: 'Allow', Action: ['s3:GetObject', 's3:ListBucket'], Resource: 'data/*' };
  const uploads = { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject'], Resource: 'up/*' };
  const S3 = 'class PutObjectCommand {}\nclass GetObjectCommand {}\n';
  const PAGES = '// lib/web/mmgis/bucketBuild.ts\n';

  /** The statements of the role applyRoles gives each function, whose bundle is `bundles[name]`. */
  function rolesFor(bundles: Record<string, string>): Record<string, any[]> {
    const root = mkdtempSync(join(tmpdir(), 'roles-'));
    mkdirSync(join(root, 'dist'));
    const resources: Record<string, any> = {
      IamRoleLambdaExecution: {
        Type: 'AWS::IAM::Role',
        Properties: { Policies: [{ PolicyDocument: { Statement: [base, pages, data, uploads] } }] },
      },
    };
    for (const [name, code] of Object.entries(bundles)) {
      writeFileSync(join(root, 'dist', `${name}.js`), code);
      resources[name] = { Type: 'AWS::Lambda::Function', Properties: { Handler: `dist/${name}.handler` } };
    }
    applyRoles(resources, root, null);
    rmSync(root, { recursive: true, force: true });
    return Object.fromEntries(
      Object.keys(bundles).map((n) => [
        n,
        resources[resources[n].Properties.Role['Fn::GetAtt'][0]].Properties.Policies[0].PolicyDocument
          .Statement,
      ]),
    );
  }

  it('a page bundle gets the templates alone; a bundle that also opens other buckets keeps them', () => {
    const roles = rolesFor({
      page: `${S3}${PAGES}`,
      everything: `${S3}${PAGES}function missionStorage() {}\nfunction uploadBucket() {}\n`,
      mission: `${S3}function missionStorage() {}\n`,
    });
    expect(roles.page).toEqual([base, pages]);
    expect(roles.everything).toEqual([base, uploads, data, pages]);
    expect(roles.mission).toEqual([base, uploads, data]);
  });
});
