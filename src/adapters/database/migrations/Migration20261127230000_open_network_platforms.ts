import { Migration } from '@mikro-orm/migrations';

const tables = ['social_connections', 'publish_targets', 'oauth_authorizations'] as const;
const platforms = (list: string[]) => list.map((platform) => `'${platform}'`).join(', ');
const before = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads'];
const added = ['nostr', 'telegram', 'discord', 'slack'];

export class Migration20261127230000_open_network_platforms extends Migration {
  override name = 'Migration20261127230000_open_network_platforms';

  override up(): void | Promise<void> {
    for (const table of tables) {
      this.addSql(`alter table "${table}" drop constraint "${table}_platform_check";`);
      this.addSql(`alter table "${table}" add constraint "${table}_platform_check" check ("platform" in (${platforms([...before, ...added])}));`);
    }
  }

  override down(): void | Promise<void> {
    // Targets first: they reference the connections.
    for (const table of ['publish_targets', 'social_connections', 'oauth_authorizations'] as const) {
      this.addSql(`delete from "${table}" where "platform" in (${platforms(added)});`);
    }
    for (const table of tables) {
      this.addSql(`alter table "${table}" drop constraint "${table}_platform_check";`);
      this.addSql(`alter table "${table}" add constraint "${table}_platform_check" check ("platform" in (${platforms(before)}));`);
    }
  }
}
