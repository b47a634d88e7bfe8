import { getDb } from '#lib/db/index.ts';
import { type DeliveryEvent, deliverWebhooks } from '#lib/webhooks/trigger.ts';

/** Async function (invoked by a draw change with `{action, fileId, webhooks}`): calls the receivers. */
export const handler = async (event: DeliveryEvent) => {
  const outcomes = await deliverWebhooks(getDb(), event);
  return { action: event.action, fileId: event.fileId, outcomes };
};
