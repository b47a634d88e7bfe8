import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { envText } from '#lib/settings.ts';

let client: LambdaClient | undefined;

function lambda(): LambdaClient {
  const endpoint = envText('LAMBDA_ENDPOINT');
  client ??= new LambdaClient({
    region: envText('AWS_REGION') ?? 'us-east-1',
    // Locally serverless-offline's Lambda port; on AWS the regional endpoint.
    ...(endpoint ? { endpoint } : {}),
  });
  return client;
}

/** The deployed name of function `fn` of this service (`<service>-<stage>-<fn>`). */
export function functionName(fn: string): string {
  const prefix = envText('SERVICE_PREFIX') ?? 'mmgis-dev';
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
