import { Migration } from '@mikro-orm/migrations';

export class Migration20261129103521_request_effect_secrets extends Migration {
  override name = 'Migration20261129103521_request_effect_secrets';

  override up(): void | Promise<void> {
    this.addSql(`alter table "request_effects" alter column "resource_id" type varchar(80) using ("resource_id"::varchar(80));`);
    this.addSql(`alter table "request_effects" add "secret_sealed" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "request_effects" drop column "secret_sealed";`);
    // Effects that name more than an id (a redelivery's "<deliveryId>/<attempt>") have no place in a uuid column.
    this.addSql(`delete from "request_effects" where "resource_id" !~ '^[0-9a-fA-F-]{36}$';`);
    this.addSql(`alter table "request_effects" alter column "resource_id" type uuid using ("resource_id"::uuid);`);
  }
}
