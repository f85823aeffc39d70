import { Migration } from '@mikro-orm/migrations';

export class Migration20261127200600_publish_target_attempts extends Migration {
  override name = 'Migration20261127200600_publish_target_attempts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "publish_target_attempts" ("id" uuid not null, "target_id" uuid not null, "attempt" int not null, "attempted_at" timestamptz not null, "outcome" text not null, "detail" text not null, "next_attempt_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "publish_target_attempts" add constraint "publish_target_attempts_target_id_attempt_unique" unique ("target_id", "attempt");`);
    this.addSql(
      `alter table "publish_target_attempts" add constraint "publish_target_attempts_target_id_foreign" foreign key ("target_id") references "publish_targets" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "publish_target_attempts" add constraint "publish_target_attempts_outcome_check" check ("outcome" in ('published', 'refused', 'rate_limited', 'unavailable', 'unknown'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "publish_target_attempts" cascade;`);
  }
}
