import { v5 as uuidV5 } from 'uuid';

// The namespace of delivery ids (a random UUID, fixed for ever: changing it would change every id).
const deliveryNamespace = '3f4b2c8e-6a1d-4c1e-9b7a-5d2e8f0c4a91';

/**
 * The delivery id of one event to one webhook: derived from the two (UUID v5), so every attempt and any re-dispatch
 * of the same event to the same webhook carries the same `X-Service-Delivery-Id`, and receivers can drop duplicates.
 */
export function deliveryIdOf(eventId: string, webhookId: string): string {
  return uuidV5(`${eventId}/${webhookId}`, deliveryNamespace);
}
