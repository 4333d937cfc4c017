import type { Command } from 'commander';
import { createLogger } from '../log.js';
import { migrate, openDatabase } from '../store/database.js';
import { configOrExit } from './common.js';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply database migrations (serve and worker also do this at start-up)')
    .action(async () => {
      const config = configOrExit();
      const log = createLogger(config.logLevel);
      const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        const applied = await migrate(database.db);
        log.info({ database: database.dialect, applied }, applied.length ? 'migrated' : 'already up to date');
      } finally {
        await database.close();
      }
    });
}
