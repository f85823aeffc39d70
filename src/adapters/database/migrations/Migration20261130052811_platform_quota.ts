import { Migration } from '@mikro-orm/migrations';

export class Migration20261130052811_platform_quota extends Migration {
  override name = 'Migration20261130052811_platform_quota';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "platform_quota_days" ("platform" text not null, "day" date not null, "units" int not null default 0, primary key ("platform", "day"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "platform_quota_days" cascade;`);
  }
}
