import { successMessage, successWith } from '../describe.ts';
import { arrayOf, dateTime, object, string } from '../json.ts';

/** Response shapes of /api/webhooks (docs/webhooks.md), as the configure app's Webhooks page reads them. */

export const webhooksSaved = successMessage();

/** The saves, newest first; `config` is the JSON text of `{webhooks: [...]}`. */
export const webhooksEntries = successWith(
  { body: object({ entries: arrayOf(object({ config: string, updated: dateTime })) }) },
  ['body'],
);
