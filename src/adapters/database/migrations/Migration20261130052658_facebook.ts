import { Migration } from '@mikro-orm/migrations';

export class Migration20261130052658_facebook extends Migration {
  override name = 'Migration20261130052658_facebook';

  override up(): void | Promise<void> {
    this.addSql(`alter table "social_connections" drop constraint "social_connections_platform_check";`);
    this.addSql(
      `alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest', 'youtube', 'instagram', 'tiktok', 'facebook'));`,
    );

    this.addSql(`alter table "oauth_authorizations" drop constraint "oauth_authorizations_platform_check";`);
    this.addSql(
      `alter table "oauth_authorizations" add constraint "oauth_authorizations_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest', 'youtube', 'instagram', 'tiktok', 'facebook'));`,
    );

    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_platform_check";`);
    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest', 'youtube', 'instagram', 'tiktok', 'facebook'));`,
    );
  }

  override down(): void | Promise<void> {
    // The older constraints refuse Facebook: its rows go first, targets before the connections they reference.
    for (const table of ['publish_targets', 'social_connections', 'oauth_authorizations']) {
      this.addSql(`delete from "${table}" where "platform" = 'facebook';`);
    }
    this.addSql(`alter table "oauth_authorizations" drop constraint "oauth_authorizations_platform_check";`);
    this.addSql(
      `alter table "oauth_authorizations" add constraint "oauth_authorizations_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest', 'youtube', 'instagram', 'tiktok'));`,
    );

    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_platform_check";`);
    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest', 'youtube', 'instagram', 'tiktok'));`,
    );

    this.addSql(`alter table "social_connections" drop constraint "social_connections_platform_check";`);
    this.addSql(
      `alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack', 'pinterest', 'youtube', 'instagram', 'tiktok'));`,
    );
  }
}
