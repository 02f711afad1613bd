/**
 * `npm run models:check`: for every model, the layout of its stored records against its
 * definition, every stored record against its current schema, and the records of an owner model
 * that have no owner; changes nothing. Reads the
 * table `npm start` would (DATA_DIR's embedded engine, or DYNAMODB_ENDPOINT and TABLE_NAME);
 * the embedded engine's data cannot be read while a server holds it. Exits 1 when a model is
 * refused or holds records its schema refuses.
 */
import { resolve } from 'node:path';
import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { loadAllModels } from '../shared/models/load-all';
import { auditModel } from '../shared/store/layout/audit';
import { LayoutMismatch } from '../shared/store/errors';
import { resolveLayout } from '../shared/store/layout/layout';
import { startDynalite } from './local/engine';
import { checkDataDir, readConfig, StartupError } from './local/startup';

async function main(): Promise<number> {
  const config = readConfig(process.env, (dir) => resolve(dir));
  process.env.TABLE_NAME = config.tableName;
  let engine: Awaited<ReturnType<typeof startDynalite>> | undefined;
  if (!config.endpoint) {
    await checkDataDir(config.dataDir);
    engine = await startDynalite({ path: config.dataDir });
    process.env.DYNAMODB_ENDPOINT = engine.endpoint;
  }
  let problems = 0;
  try {
    for (const model of await loadAllModels()) {
      try {
        const layout = await resolveLayout(model);
        const building = layout.building.length > 0 ? `; building: ${layout.building.join(', ')} (${layout.progress.done} records done)` : '';
        console.log(`${model.name}: indexed [${layout.slots.join(', ')}], shards ${layout.shards}${building}`);
      } catch (error) {
        if (!(error instanceof LayoutMismatch)) throw error;
        problems += 1;
        console.log(`${model.name}: REFUSED: ${error.change}. To fix: ${error.fix}`);
        continue;
      }
      const audit = await auditModel(model);
      console.log(`  ${audit.records} records, ${audit.refused} not matching the current schema`);
      for (const { id, details } of audit.examples) console.log(`    ${id}: ${details.map((d) => `${d.path || 'record'}: ${d.message}`).join('; ')}`);
      if (audit.refused > 0) problems += 1;
      if (model.owner && audit.unowned > 0) {
        // Reported, not a failure: such records are reached by admin alone, never by every caller.
        console.log(
          `  ${audit.unowned} records without an owner in ${model.owner}: only admin reaches them. To give them one, as admin: POST /api/db/${model.name}/update {"filters": {"${model.owner}": null}, "values": {"${model.owner}": "<subject>"}, "allow_all": true}`,
        );
      }
    }
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    console.log(`table ${config.tableName} does not exist: nothing is stored yet`);
  } finally {
    engine?.server.close();
  }
  return problems > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof StartupError ? `models:check cannot run: ${error.message}` : error);
    process.exit(2);
  },
);
