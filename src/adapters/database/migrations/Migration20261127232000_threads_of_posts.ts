import { Migration } from '@mikro-orm/migrations';

export class Migration20261127232000_threads_of_posts extends Migration {
  override name = 'Migration20261127232000_threads_of_posts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "publish_targets" add column "thread" boolean not null default false;`);
    this.addSql(
      `create table "publish_target_parts" ("id" uuid not null, "target_id" uuid not null, "part" int not null, "external_post_id" text not null, "external_url" text null, "reply_ref" text null, "published_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "publish_target_parts" add constraint "publish_target_parts_target_id_part_unique" unique ("target_id", "part");`);
    this.addSql(
      `alter table "publish_target_parts" add constraint "publish_target_parts_target_id_foreign" foreign key ("target_id") references "publish_targets" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "publish_target_attempts" add column "part" int not null default 1;`);
    this.addSql(`alter table "publish_target_attempts" drop constraint "publish_target_attempts_target_id_attempt_unique";`);
    this.addSql(
      `alter table "publish_target_attempts" add constraint "publish_target_attempts_target_id_attempt_part_unique" unique ("target_id", "attempt", "part");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "publish_target_attempts" drop constraint "publish_target_attempts_target_id_attempt_part_unique";`);
    this.addSql(`delete from "publish_target_attempts" where "part" > 1;`);
    this.addSql(`alter table "publish_target_attempts" add constraint "publish_target_attempts_target_id_attempt_unique" unique ("target_id", "attempt");`);
    this.addSql(`alter table "publish_target_attempts" drop column "part";`);
    this.addSql(`drop table if exists "publish_target_parts" cascade;`);
    this.addSql(`alter table "publish_targets" drop column "thread";`);
  }
}
