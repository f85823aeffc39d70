/**
 * The JSON body of a test event (`POST /webhooks/{id}/test`): shaped like a real delivery (`event`, `workspaceId`,
 * `timestamp`, `data`), so a receiver exercises the same parsing and signature checks, but with an event name no
 * subscription can hold, so it cannot be mistaken for a post's event.
 */
export function testEventBody(input: { workspaceId: string; webhookId: string; sentAt: Date }): string {
  return JSON.stringify({
    event: 'webhook.test',
    workspaceId: input.workspaceId,
    timestamp: input.sentAt.toISOString(),
    data: { webhookId: input.webhookId },
  });
}
