import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001_initial.js';
import { agent } from './0002_agent.js';

// Listed in code rather than read from a folder so the same list works from src/ and dist/.
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_agent': agent,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
