import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import type { ImageProvider } from '../image-providers/image-provider.ts';
import { socialPlatforms } from '../social/social-connector.ts';
import { remoteCallOutcomes } from './remote-call-outcome.ts';

// The worker's own metrics, beside the Temporal SDK's (which its native exporter serves on a port of its own). Names
// and labels are listed in docs/operations.md (Metrics); every label takes its values from a small closed set, and
// every series starts at zero (a counter that appears at 1 loses its first increase to rate()).

export const workerRegistry = new Registry();
collectDefaultMetrics({ register: workerRegistry });

/** workflows/contracts/deliver-event.ts's DeliveryOutcome. */
const webhookDeliveryOutcomes = ['delivered', 'failed', 'gone', 'unusable', 'not-on-plan'] as const;
const imageProviders = ['local', 'stability', 'openai'] as const satisfies ReadonlyArray<ImageProvider['name']>;

export const webhookDeliveryAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts sent and logged, by outcome (delivered, failed, gone, unusable, not-on-plan).',
  labelNames: ['outcome'] as const,
  registers: [workerRegistry],
});
for (const outcome of webhookDeliveryOutcomes) webhookDeliveryAttempts.inc({ outcome }, 0);

export const postGenerations = new Counter({
  name: 'post_generations_total',
  help: 'Calls to the image provider for a post generation, by provider and outcome (each retry counts).',
  labelNames: ['provider', 'outcome'] as const,
  registers: [workerRegistry],
});
for (const provider of imageProviders) for (const outcome of remoteCallOutcomes) postGenerations.inc({ provider, outcome }, 0);

export const socialPublishAttempts = new Counter({
  name: 'social_publish_attempts_total',
  help: 'Attempts to publish a post to a social platform, by platform and outcome (each retry counts).',
  labelNames: ['platform', 'outcome'] as const,
  registers: [workerRegistry],
});
for (const platform of socialPlatforms) for (const outcome of remoteCallOutcomes) socialPublishAttempts.inc({ platform, outcome }, 0);
