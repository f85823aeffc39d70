import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDelivery } from '../../adapters/database/entities/webhook-delivery.ts';
import type { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { isSuccessStatus, unusableUrlReason, type WebhookPostResult } from '../../adapters/webhook-sender/post-webhook.ts';
import { outcomeOf, slowAnswerMs, type DeliveryTarget } from './delivery-attempt.ts';

export type DeliveryAnswer = { target: DeliveryTarget; attemptedAt: Date; response: Pick<WebhookPostResult, 'statusCode' | 'durationMs' | 'error'> };

/**
 * What the log already holds for this attempt of these deliveries (a retried activity), by delivery id. The log
 * keeps the answer, not the outcome; whether the URL could ever work is told again from the URL itself.
 */
export async function loggedDeliveryAnswers(em: EntityManager, targets: readonly DeliveryTarget[], attempt: number) {
  const urls = new Map(targets.map((target) => [target.deliveryId, target.webhook.url]));
  const rows = await em.find(WebhookDelivery, { deliveryId: { $in: [...urls.keys()] }, attempt });
  return new Map(
    rows.map((row) => {
      const outcome = outcomeOf({ statusCode: row.statusCode ?? null, permanent: unusableUrlReason(urls.get(row.deliveryId)!) !== null });
      return [row.deliveryId, { statusCode: row.statusCode ?? null, error: row.error ?? null, outcome }] as const;
    }),
  );
}

/**
 * Logs a round of attempts (each once, however often the activity is retried), touches `lastTriggeredAt`, tells
 * whether each webhook answered slowly (see slowAnswerMs) and deactivates the webhooks that answered 410: one statement whatever the number of webhooks, atomic on its own (the
 * log's insert runs as a data-modifying CTE beside the webhooks' update), so a round costs the database one round
 * trip instead of a transaction's four. A webhook deleted while its request was under way took its log with it: its
 * row is left out rather than failing the round's other rows.
 */
export async function recordDeliveryRound(em: EntityManager, event: WorkspaceEvent, attempt: number, answers: readonly DeliveryAnswer[]): Promise<void> {
  if (answers.length === 0) return;
  // Every webhook of the round gets the round's latest attempt time.
  const attemptedAt = new Date(Math.max(...answers.map((answer) => answer.attemptedAt.getTime())));
  await em.execute(
    `with logged as (
       insert into webhook_deliveries (id, webhook_id, event_id, event_type, delivery_id, attempt, attempted_at, status_code, duration_ms, succeeded, error)
       select * from (values ${answers.map(() => '(?::uuid, ?::uuid, ?::uuid, ?, ?, ?::integer, ?::timestamptz, ?::integer, ?::integer, ?::boolean, ?)').join(', ')})
         as a(id, webhook_id, event_id, event_type, delivery_id, attempt, attempted_at, status_code, duration_ms, succeeded, error)
        where exists (select 1 from webhooks w where w.id = a.webhook_id)
       on conflict (delivery_id, attempt) do nothing
     )
     update webhooks as w set last_triggered_at = ?::timestamptz, is_active = w.is_active and not r.gone, answers_slowly = r.slow
       from (values ${answers.map(() => '(?::uuid, ?::boolean, ?::boolean)').join(', ')}) as r(id, gone, slow)
      where w.id = r.id`,
    [
      ...answers.flatMap(({ target, attemptedAt: at, response }) => [
        newId(),
        target.webhook.id,
        event.id,
        event.type,
        target.deliveryId,
        attempt,
        at.toISOString(),
        response.statusCode,
        Math.round(response.durationMs),
        isSuccessStatus(response.statusCode),
        response.error,
      ]),
      attemptedAt.toISOString(),
      ...answers.flatMap(({ target, response }) => [target.webhook.id, response.statusCode === 410, response.durationMs >= slowAnswerMs]),
    ],
    'run',
  );
}
