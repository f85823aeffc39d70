import type { CredentialsOf, PlatformModule } from '../platform-module.ts';
import { nostrCredentialsOf, type NostrConnectionInput } from './nostr-connection-input.ts';
import { createNostrConnector } from './nostr-connector.ts';

export const nostrPlatform = {
  platform: 'nostr',
  // A note keeps its link for ever, and readers' clients fetch it whenever they show the note.
  imageLink: 'lasting',
  connection: {
    via: 'credentials',
    credentialsOf: nostrCredentialsOf,
    rejectedFields: { server: '/relays', credentials: '/secretKey' },
    serverUrlOf: (credentials: CredentialsOf<'nostr'>) => credentials.relays[0]!,
  },
  // Relays have their own bound on each answer (nostr-connector.ts), not the HTTP request timeout.
  createConnector: (config) => createNostrConnector({ allowPrivateNetworks: config.allowPrivateNetworks }),
} satisfies PlatformModule<'nostr', NostrConnectionInput>;
