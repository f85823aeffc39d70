import { Migration } from '@mikro-orm/migrations';

export class Migration20261129181500_publish_target_video extends Migration {
  override name = 'Migration20261129181500_publish_target_video';

  override up(): void | Promise<void> {
    this.addSql(`alter table "publish_targets" add "video_key" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "publish_targets" drop column "video_key";`);
  }
}
