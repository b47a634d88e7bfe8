import { getDb } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';
import { JOB_RESUME_WAIT_MS, withResumeWait } from '#lib/db/resumeWait.ts';

/** The CloudFormation custom-resource event of `MigrateOnDeploy` (serverless/plugins/deployment.cjs). */
interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
  ResourceProperties?: { Deployment?: string };
  OldResourceProperties?: { Deployment?: string };
}

/**
 * A rollback sends the previous properties again: an Update whose `Deployment` (the package time,
 * serverless/plugins/deployment.cjs) is older than the one it replaces. Migrations only go forward, so
 * there is nothing to do, and a database that cannot be reached must not fail the rollback itself
 * (UPDATE_ROLLBACK_FAILED).
 */
function isRollback(event: CustomResourceEvent): boolean {
  const next = event.ResourceProperties?.Deployment;
  const previous = event.OldResourceProperties?.Deployment;
  return event.RequestType === 'Update' && !!next && !!previous && next < previous;
}

async function answer(event: CustomResourceEvent, status: 'SUCCESS' | 'FAILED', reason: string, data = {}) {
  const body = JSON.stringify({
    Status: status,
    Reason: reason.slice(0, 2000),
    PhysicalResourceId: event.PhysicalResourceId ?? 'migrations',
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    Data: data,
  });
  await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
}

/**
 * Applies pending migrations: invoked by CloudFormation once per deploy (the `MigrateOnDeploy` custom
 * resource) or by hand (`serverless invoke -f migrate`). A deploy may find the cluster auto-paused: its
 * calls wait up to `JOB_RESUME_WAIT_MS` for the resume (lib/db/resumeWait.ts).
 */
export const handler = (event?: Partial<CustomResourceEvent>) =>
  withResumeWait(JOB_RESUME_WAIT_MS, () => applyMigrations(event));

async function applyMigrations(event?: Partial<CustomResourceEvent>) {
  if (event?.ResponseURL && event.RequestType) {
    const cfn = event as CustomResourceEvent;
    if (cfn.RequestType === 'Delete') return answer(cfn, 'SUCCESS', 'nothing to undo');
    if (isRollback(cfn)) return answer(cfn, 'SUCCESS', 'rollback: migrations only go forward');
    try {
      const applied = await migrate(getDb().sql);
      return answer(cfn, 'SUCCESS', `applied ${applied.length}`, { applied: applied.join(',') });
    } catch (e) {
      return answer(cfn, 'FAILED', (e as Error).message);
    }
  }
  const applied = await migrate(getDb().sql);
  return { status: 'success', applied };
}
