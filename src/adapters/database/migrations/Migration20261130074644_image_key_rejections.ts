import { Migration } from '@mikro-orm/migrations';

export class Migration20261130074644_image_key_rejections extends Migration {
  override name = 'Migration20261130074644_image_key_rejections';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "image_key_rejections" ("provider" text not null, "setting" text not null, "rejected_at" timestamptz not null, primary key ("provider"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "image_key_rejections" cascade;`);
  }
}
