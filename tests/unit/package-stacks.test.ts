import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allResources, STACK_QUOTAS, type Stack, validateStacks } from '../fixtures/cfnTemplates.ts';
import { PRESETS } from '../fixtures/packagePresets.ts';
import { packagedStacks, packageService } from '../fixtures/packageService.ts';

/**
 * Every database preset of docs/deploying.md fits every CloudFormation quota a deploy meets, stack by
 * stack (nested stacks of serverless-plugin-split-stacks included), is valid against the CloudFormation
 * resource specification with every reference resolving across the stacks, and its measured numbers are
 * the ones docs/deploying.md states ("Nested stacks").
 */

const presets = PRESETS;

const stacksOf = packagedStacks(presets, 'sls-stacks-');

/** The numbers docs/deploying.md states per preset. */
function measure(stacks: Stack[]) {
  const count = (s: Stack) => Object.keys(s.template.Resources ?? {}).length;
  const resources = Object.values(allResources(stacks));
  const ofType = (type: string) => resources.filter((r) => r.Type === type).length;
  return {
    stacks: stacks.length,
    root: count(stacks[0]),
    nestedMin: Math.min(...stacks.slice(1).map(count)),
    nestedMax: Math.max(...stacks.slice(1).map(count)),
    total: stacks.reduce((n, s) => n + count(s), 0),
    functions: ofType('AWS::Lambda::Function'),
    restResources: ofType('AWS::ApiGateway::Resource'),
    methods: ofType('AWS::ApiGateway::Method'),
  };
}

/** The table of docs/deploying.md under "Nested stacks": preset → its row's numbers. */
function documented(): Record<string, number[]> {
  const doc = readFileSync('docs/deploying.md', 'utf8');
  const rows: Record<string, number[]> = {};
  for (const m of doc.matchAll(/^\| `(local|data-api|proxy)` \|((?: [\d,–]+ \|)+)$/gm)) {
    rows[m[1]] = m[2]
      .split('|')
      .map((c) => c.trim())
      .filter(Boolean)
      .flatMap((c) => c.split('–').map((n) => Number(n.replace(/,/g, ''))));
  }
  return rows;
}

describe.each(Object.keys(presets))('preset %s, packaged', (name) => {
  it('fits every CloudFormation quota, stack by stack and in all', () => {
    const stacks = stacksOf[name];
    expect(stacks.length).toBeGreaterThan(1);
    let total = 0;
    for (const s of stacks) {
      const t = s.template;
      const n = Object.keys(t.Resources ?? {}).length;
      total += n;
      expect(n, `${s.name} resources`).toBeLessThanOrEqual(STACK_QUOTAS.resources);
      expect(Object.keys(t.Outputs ?? {}).length, `${s.name} outputs`).toBeLessThanOrEqual(
        STACK_QUOTAS.outputs,
      );
      expect(Object.keys(t.Parameters ?? {}).length, `${s.name} parameters`).toBeLessThanOrEqual(
        STACK_QUOTAS.parameters,
      );
      expect(Object.keys(t.Mappings ?? {}).length).toBeLessThanOrEqual(STACK_QUOTAS.mappings);
      const ids = Object.keys({ ...t.Resources, ...t.Outputs, ...t.Parameters });
      expect(Math.max(...ids.map((id) => id.length))).toBeLessThanOrEqual(STACK_QUOTAS.logicalIdChars);
      expect(s.bytes, `${s.name} bytes`).toBeLessThanOrEqual(STACK_QUOTAS.templateBytes);
    }
    expect(total).toBeLessThanOrEqual(STACK_QUOTAS.resourcesPerDeploy);
    const resources = Object.values(allResources(stacks));
    const rest = resources.filter((r) => r.Type === 'AWS::ApiGateway::Resource');
    expect(rest.length).toBeLessThanOrEqual(STACK_QUOTAS.restApiResources);
    // No reservation by default: a new account's concurrency quota can be 10 (docs/deploying.md).
    const reserved = resources
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .reduce((n, r) => n + Number(r.Properties.ReservedConcurrentExecutions ?? 0), 0);
    expect(reserved).toBe(0);
    expect(resources.filter((r) => r.Type === 'AWS::Lambda::Version')).toHaveLength(0);
  });

  it('puts each function in the nested stack its name hashes to, so adding one never moves another', () => {
    // serverless-plugin-split-stacks' perGroupFunction with nestedStackCount 20 (docs/deploying.md,
    // "Nested stacks"): fixed for good once deployed.
    const stacks = stacksOf[name];
    let functions = 0;
    for (const s of stacks) {
      for (const [id, r] of Object.entries<any>(s.template.Resources ?? {})) {
        if (r.Type !== 'AWS::Lambda::Function') continue;
        functions++;
        const normalized = id.replace(/LambdaFunction$/, '');
        const hash = createHash('sha1').update(normalized).digest('hex');
        const group = (Number.parseInt(hash.slice(0, 10), 16) % 20) + 1;
        expect(s.name, id).toBe(`${group}NestedStack`);
      }
    }
    expect(functions).toBeGreaterThan(100);
  });

  it('is valid against the CloudFormation resource specification, every reference resolving', () => {
    expect(validateStacks(stacksOf[name])).toEqual([]);
  });

  it('has the numbers docs/deploying.md states ("Nested stacks")', () => {
    const m = measure(stacksOf[name]);
    expect(documented()[name]).toEqual([
      m.stacks,
      m.root,
      m.nestedMin,
      m.nestedMax,
      m.total,
      m.functions,
      m.restResources,
      m.methods,
    ]);
  });
});

describe('the validator', () => {
  it('reports an unknown property, a wrong shape, a dangling reference and a parameter not passed', () => {
    const stacks = structuredClone(stacksOf['data-api']);
    const resources = stacks[0].template.Resources;
    resources.FrontDoorDistribution.Properties.DistributionConfig.Enabeld = true;
    resources.ApiGatewayRestApi.Properties.BinaryMediaTypes = 'application/x-protobuf';
    resources.IamRoleLambdaBase.DependsOn = ['NoSuchResource'];
    const child = stacks[1];
    const passed = stacks[0].template.Resources[child.name].Properties.Parameters;
    delete passed[Object.keys(passed)[0]];
    const fn = Object.values<any>(child.template.Resources).find((r) => r.Type === 'AWS::Lambda::Function');
    fn.Properties.Role = { 'Fn::GetAtt': ['IamRoleLambdaExecution', 'Arn'] };
    const stage = Object.values<any>(resources).find((r) => r.Type === 'AWS::ApiGateway::Stage');
    stage.Properties.MethodSettings.push({
      ResourcePath: '/~1API~1geodatasets~1get',
      HttpMethod: 'GET',
    });
    const problems = validateStacks(stacks).join('\n');
    expect(problems).toMatch(/unknown property Enabeld/);
    expect(problems).toMatch(/BinaryMediaTypes: not a list/);
    expect(problems).toMatch(/DependsOn NoSuchResource/);
    expect(problems).toMatch(/parameter \w+ not passed/);
    expect(problems).toMatch(/Fn::GetAtt IamRoleLambdaExecution names no resource/);
    expect(problems).toMatch(/method setting for GET \/API\/geodatasets\/get/);
  });
});

describe('reserved concurrency', () => {
  it('fails at package time when the reservations leave under 100 unreserved, naming the parameter', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sls-reserved-'));
    try {
      const failed = await packageService(
        out,
        ['readConcurrency=301'],
        { AUTH: 'none', CORS_ORIGINS: '' },
        {
          templateOnly: true,
        },
      ).then(
        () => null,
        (e: { stdout?: string; stderr?: string; message: string }) =>
          `${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
      );
      expect(failed).toMatch(/Reserved concurrency 903 \(readConcurrency=301 × 3 function\(s\) = 903\)/);
      expect(failed).toMatch(/leaves 97 of accountConcurrency=1000 unreserved; AWS requires 100/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);

  it("sets each parameter's reservation on its functions when they leave 100 unreserved", async () => {
    const out = mkdtempSync(join(tmpdir(), 'sls-reserved-'));
    try {
      const params = [
        'readConcurrency=100',
        'aggregationsConcurrency=5',
        'jobConcurrency=4',
        'accountConcurrency=1000',
      ];
      const t = JSON.parse(
        await packageService(out, params, { AUTH: 'none', CORS_ORIGINS: '' }, { templateOnly: true }),
      );
      const reserved = (id: string) => t.Resources[id].Properties.ReservedConcurrentExecutions;
      for (const id of ['GeodatasetsGetLambdaFunction', 'OgcItemsLambdaFunction', 'OgcTileLambdaFunction'])
        expect(reserved(id), id).toBe(100);
      expect(reserved('GeodatasetsAggregationsLambdaFunction')).toBe(5);
      expect(reserved('GeodatasetsBulkAggregationsLambdaFunction')).toBe(5);
      expect(reserved('JobReapStaleLambdaFunction')).toBe(4);
      expect(reserved('JobIngestUploadLambdaFunction')).toBe(4);
      expect(reserved('MigrateLambdaFunction')).toBeUndefined();
      expect(reserved('GeodatasetsSearchLambdaFunction')).toBeUndefined();
      // docs/deploying.md, "Concurrency": these three parameters reserve 334 in all.
      const total = Object.values<any>(t.Resources)
        .filter((r) => r.Type === 'AWS::Lambda::Function')
        .reduce((n, r) => n + (r.Properties.ReservedConcurrentExecutions ?? 0), 0);
      expect(total).toBe(334);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
