import { Migration } from '@mikro-orm/migrations';

export class Migration20261122100740_posts_versions_usage_events extends Migration {
  override name = 'Migration20261122100740_posts_versions_usage_events';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "posts" ("id" uuid not null, "workspace_id" uuid not null, "project_id" uuid not null, "title" varchar(200) not null, "prompt" text not null, "status" text not null default 'draft', "format" text not null default '1:1', "image_key" text null, "artwork_key" text null, "has_video" boolean not null default false, "brand_kit_id" uuid null, "scheduled_at" timestamptz null, "published_at" timestamptz null, "failure_reason" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "posts_workspace_created_index" on "posts" ("workspace_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "posts_workspace_status_created_index" on "posts" ("workspace_id", "status", "created_at" desc, "id" desc);`);
    this.addSql(`create index "posts_project_created_index" on "posts" ("project_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "posts_brand_kit_index" on "posts" ("brand_kit_id");`);

    this.addSql(
      `create table "usage_activity" ("id" uuid not null, "workspace_id" uuid not null, "type" text not null, "description" text not null, "post_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "usage_activity_workspace_created_index" on "usage_activity" ("workspace_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "usage_activity_post_index" on "usage_activity" ("post_id");`);

    this.addSql(
      `create table "post_versions" ("id" uuid not null, "post_id" uuid not null, "version_number" int not null, "label" varchar(200) not null, "kind" text not null, "image_key" text not null, "artwork_key" text null, "prompt" text not null, "format" text not null, "seed" bigint null, "source_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "post_versions" add constraint "post_versions_source_id_unique" unique ("source_id");`);
    this.addSql(`alter table "post_versions" add constraint "post_versions_post_id_version_number_unique" unique ("post_id", "version_number");`);

    this.addSql(
      `create table "events" ("id" uuid not null, "workspace_id" uuid not null, "type" text not null, "post_id" uuid null, "details" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "events_workspace_id_created_at_index" on "events" ("workspace_id", "created_at");`);

    this.addSql(
      `alter table "posts" add constraint "posts_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "posts" add constraint "posts_project_id_foreign" foreign key ("project_id") references "projects" ("id") on delete cascade;`);
    this.addSql(
      `alter table "posts" add constraint "posts_brand_kit_id_foreign" foreign key ("brand_kit_id") references "brand_kits" ("id") on delete set null;`,
    );
    this.addSql(`alter table "posts" add constraint "posts_status_check" check ("status" in ('draft', 'scheduled', 'published', 'failed'));`);
    this.addSql(`alter table "posts" add constraint "posts_format_check" check ("format" in ('1:1', '9:16', '16:9'));`);

    this.addSql(
      `alter table "usage_activity" add constraint "usage_activity_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "usage_activity" add constraint "usage_activity_post_id_foreign" foreign key ("post_id") references "posts" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "usage_activity" add constraint "usage_activity_type_check" check ("type" in ('PostGeneration', 'PostRender', 'VideoGeneration', 'PostPublish', 'SocialPublish', 'ScheduledGeneration'));`,
    );

    this.addSql(
      `alter table "post_versions" add constraint "post_versions_post_id_foreign" foreign key ("post_id") references "posts" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "post_versions" add constraint "post_versions_kind_check" check ("kind" in ('generated', 'rendered', 'restored'));`);
    this.addSql(`alter table "post_versions" add constraint "post_versions_format_check" check ("format" in ('1:1', '9:16', '16:9'));`);

    this.addSql(
      `alter table "events" add constraint "events_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "events" add constraint "events_type_check" check ("type" in ('post.published', 'post.failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "usage_activity" drop constraint "usage_activity_post_id_foreign";`);
    this.addSql(`alter table "post_versions" drop constraint "post_versions_post_id_foreign";`);

    this.addSql(`drop table if exists "posts" cascade;`);
    this.addSql(`drop table if exists "usage_activity" cascade;`);
    this.addSql(`drop table if exists "post_versions" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
  }
}
