import type { Activities } from '../../activities/index.ts';

// What starting redeliverWebhook takes and answers: importing nothing of ours at run time.

/** The delivery, its webhook and event, and the attempt number this redelivery is logged as. */
export type RedeliverWebhookInput = Parameters<Activities['attemptWebhookDelivery']>[0];
export type RedeliveryResult = Awaited<ReturnType<Activities['attemptWebhookDelivery']>>;
