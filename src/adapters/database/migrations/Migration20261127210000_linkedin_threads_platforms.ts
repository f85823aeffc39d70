import { Migration } from '@mikro-orm/migrations';

const tables = ['social_connections', 'publish_targets', 'oauth_authorizations'] as const;

export class Migration20261127210000_linkedin_threads_platforms extends Migration {
  override name = 'Migration20261127210000_linkedin_threads_platforms';

  override up(): void | Promise<void> {
    for (const table of tables) {
      this.addSql(`alter table "${table}" drop constraint "${table}_platform_check";`);
      this.addSql(`alter table "${table}" add constraint "${table}_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads'));`);
    }
    this.addSql(`alter table "oauth_authorizations" add "author" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" drop column "author";`);
    // Targets first: they reference the connections.
    for (const table of ['publish_targets', 'social_connections', 'oauth_authorizations'] as const) {
      this.addSql(`delete from "${table}" where "platform" in ('linkedin', 'threads');`);
    }
    for (const table of tables) {
      this.addSql(`alter table "${table}" drop constraint "${table}_platform_check";`);
      this.addSql(`alter table "${table}" add constraint "${table}_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x'));`);
    }
  }
}
