import { Migration } from '@mikro-orm/migrations';

export class Migration20261130015735_pinterest_boards extends Migration {
  override name = 'Migration20261130015735_pinterest_boards';

  override up(): void | Promise<void> {
    this.addSql(`alter table "social_connections" drop constraint "social_connections_platform_check";`);
    this.addSql(`alter table "social_connections" add "destination_id" varchar(300) null, add "destination_name" varchar(300) null;`);
    this.addSql(
      `alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest'));`,
    );

    this.addSql(`alter table "oauth_authorizations" drop constraint "oauth_authorizations_platform_check";`);
    this.addSql(
      `alter table "oauth_authorizations" add constraint "oauth_authorizations_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest'));`,
    );

    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_platform_check";`);
    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest'));`,
    );
  }

  override down(): void | Promise<void> {
    // The older constraints refuse Pinterest: its rows go first, targets before the connections they reference.
    for (const table of ['publish_targets', 'social_connections', 'oauth_authorizations']) {
      this.addSql(`delete from "${table}" where "platform" = 'pinterest';`);
    }
    this.addSql(`alter table "oauth_authorizations" drop constraint "oauth_authorizations_platform_check";`);
    this.addSql(
      `alter table "oauth_authorizations" add constraint "oauth_authorizations_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack'));`,
    );

    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_platform_check";`);
    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack'));`,
    );

    this.addSql(`alter table "social_connections" drop constraint "social_connections_platform_check";`);
    this.addSql(`alter table "social_connections" drop column "destination_id", drop column "destination_name";`);
    this.addSql(
      `alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack'));`,
    );
  }
}
