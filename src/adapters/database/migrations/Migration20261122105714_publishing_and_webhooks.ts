import { Migration } from '@mikro-orm/migrations';

export class Migration20261122105714_publishing_and_webhooks extends Migration {
  override name = 'Migration20261122105714_publishing_and_webhooks';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "webhooks" ("id" uuid not null, "workspace_id" uuid not null, "url" text not null, "events" text not null, "secret_sealed" text null, "is_active" boolean not null default true, "last_triggered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "webhooks_workspace_id_created_at_index" on "webhooks" ("workspace_id", "created_at");`);

    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null, "webhook_id" uuid not null, "event_id" uuid not null, "event_type" varchar(100) not null, "delivery_id" varchar(100) not null, "attempt" int not null, "attempted_at" timestamptz not null, "status_code" int null, "duration_ms" int not null, "succeeded" boolean not null, "error" text null, primary key ("id"));`,
    );
    this.addSql(`create index "webhook_deliveries_webhook_attempted_index" on "webhook_deliveries" ("webhook_id", "attempted_at" desc, "id" desc);`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_delivery_id_attempt_unique" unique ("delivery_id", "attempt");`);

    this.addSql(
      `create table "social_connections" ("id" uuid not null, "workspace_id" uuid not null, "platform" text not null, "server_url" text not null, "account_name" varchar(300) not null, "account_id" varchar(300) not null, "credentials_sealed" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "social_connections_workspace_id_created_at_index" on "social_connections" ("workspace_id", "created_at");`);

    this.addSql(
      `create table "publish_targets" ("id" uuid not null, "post_id" uuid not null, "connection_id" uuid not null, "platform" text not null, "publication_id" varchar(100) not null, "status" text not null, "external_post_id" text null, "external_url" text null, "error_message" text null, "idempotency_key" uuid not null, "scheduled_at" timestamptz null, "published_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "publish_targets" add constraint "publish_targets_idempotency_key_unique" unique ("idempotency_key");`);
    this.addSql(`create index "publish_targets_post_id_created_at_index" on "publish_targets" ("post_id", "created_at");`);
    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_publication_id_connection_id_unique" unique ("publication_id", "connection_id");`,
    );

    // Events recorded before this column existed are keyed by their own id.
    this.addSql(`alter table "events" add "source_id" varchar(100) null;`);
    this.addSql(`update "events" set "source_id" = 'event-' || "id";`);
    this.addSql(`alter table "events" alter column "source_id" set not null;`);
    this.addSql(`alter table "events" add constraint "events_source_id_unique" unique ("source_id");`);

    this.addSql(
      `alter table "webhooks" add constraint "webhooks_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "social_connections" add constraint "social_connections_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "social_connections" add constraint "social_connections_platform_check" check ("platform" in ('mastodon', 'bluesky'));`);

    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_post_id_foreign" foreign key ("post_id") references "posts" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "publish_targets" add constraint "publish_targets_platform_check" check ("platform" in ('mastodon', 'bluesky'));`);
    this.addSql(
      `alter table "publish_targets" add constraint "publish_targets_status_check" check ("status" in ('Pending', 'Scheduled', 'Publishing', 'Published', 'Failed', 'Cancelled'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_id_foreign";`);

    this.addSql(`drop table if exists "webhooks" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "social_connections" cascade;`);
    this.addSql(`drop table if exists "publish_targets" cascade;`);

    this.addSql(`alter table "events" drop constraint "events_source_id_unique";`);
    this.addSql(`alter table "events" drop column "source_id";`);
  }
}
