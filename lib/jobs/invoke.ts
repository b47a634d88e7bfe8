import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { setting } from '#lib/settings.ts';

let client: LambdaClient | undefined;

function lambda(): LambdaClient {
  const endpoint = setting('LAMBDA_ENDPOINT');
  client ??= new LambdaClient({
    region: setting('AWS_REGION'),
    // Locally serverless-offline's Lambda port; on AWS the regional endpoint.
    ...(endpoint ? { endpoint } : {}),
  });
  return client;
}

/** The deployed name of function `fn` of this service (`<service>-<stage>-<fn>`). */
export function functionName(fn: string): string {
  const prefix = setting('SERVICE_PREFIX');
  return `${prefix}-${fn}`;
}

/** Invokes function `fn` asynchronously with `payload` (answers once the invocation is queued). */
export async function invokeAsync(fn: string, payload: unknown): Promise<void> {
  await lambda().send(
    new InvokeCommand({
      FunctionName: functionName(fn),
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );
}
