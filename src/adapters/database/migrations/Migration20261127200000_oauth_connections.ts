import { Migration } from '@mikro-orm/migrations';

export class Migration20261127200000_oauth_connections extends Migration {
  override name = 'Migration20261127200000_oauth_connections';

  override up(): void | Promise<void> {
    this.addSql(`alter table "social_connections" drop constraint "social_connections_platform_check";`);
    this.addSql(`alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x'));`);
    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_platform_check";`);
    this.addSql(`alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x'));`);
    // Existing connections are active; only OAuth connections have an expiry.
    this.addSql(`alter table "social_connections" add "status" text not null default 'active', add "expires_at" timestamptz null, add "last_error" text null;`);
    this.addSql(`alter table "social_connections" add constraint "social_connections_status_check" check ("status" in ('active', 'needs_reauth'));`);
    this.addSql(`alter table "workspaces" add "oauth_redirect_uris" jsonb not null default '[]';`);
    this.addSql(
      `create table "oauth_authorizations" ("id" uuid not null, "workspace_id" uuid not null, "platform" text not null, "state_hash" varchar(64) not null, "code_verifier_sealed" text not null, "redirect_uri" text not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "oauth_authorizations" add constraint "oauth_authorizations_state_hash_unique" unique ("state_hash");`);
    this.addSql(`create index "oauth_authorizations_expires_at_index" on "oauth_authorizations" ("expires_at");`);
    this.addSql(`alter table "oauth_authorizations" add constraint "oauth_authorizations_platform_check" check ("platform" in ('mastodon', 'bluesky', 'x'));`);
    this.addSql(
      `alter table "oauth_authorizations" add constraint "oauth_authorizations_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "events" drop constraint "events_type_check";`);
    this.addSql(`alter table "events" add constraint "events_type_check" check ("type" in ('post.published', 'post.failed', 'connection.expired'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "events" where "type" = 'connection.expired';`);
    this.addSql(`alter table "events" drop constraint "events_type_check";`);
    this.addSql(`alter table "events" add constraint "events_type_check" check ("type" in ('post.published', 'post.failed'));`);
    this.addSql(`drop table "oauth_authorizations";`);
    this.addSql(`alter table "workspaces" drop column "oauth_redirect_uris";`);
    this.addSql(`alter table "social_connections" drop constraint "social_connections_status_check";`);
    this.addSql(`alter table "social_connections" drop column "status", drop column "expires_at", drop column "last_error";`);
    this.addSql(`delete from "publish_targets" where "platform" = 'x';`);
    this.addSql(`delete from "social_connections" where "platform" = 'x';`);
    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_platform_check";`);
    this.addSql(`alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky'));`);
    this.addSql(`alter table "social_connections" drop constraint "social_connections_platform_check";`);
    this.addSql(`alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky'));`);
  }
}
