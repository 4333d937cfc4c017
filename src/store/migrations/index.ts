import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001_initial.js';

// Listed in code rather than read from a folder so the same list works from src/ and dist/.
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
