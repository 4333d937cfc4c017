import type { Command } from 'commander';
import { printJson, printTable, withServices } from './common.js';

export function registerKey(program: Command): void {
  const key = program.command('key').description('create, list and revoke admin API keys');

  key
    .command('create')
    .description('create an API key for a project; the full key is printed once')
    .requiredOption('--project <id>', 'project id')
    .option('--name <name>', 'what the key is for', 'default')
    .option('--json', 'print JSON')
    .action(async (o: { project: string; name: string; json?: boolean }) =>
      withServices(async ({ keys }) => {
        const k = await keys.create(o.project, o.name);
        if (o.json) {
          const { id, key: full, prefix, projectId, name, createdAt } = k;
          return printJson({ id, key: full, prefix, projectId, name, createdAt });
        }
        console.log(`Created key ${k.id} for project ${k.projectId}.`);
        console.log('Copy it now; it is not shown again:\n');
        console.log(`  ${k.key}\n`);
      }),
    );

  key
    .command('list')
    .description("list a project's keys (never the keys themselves)")
    .requiredOption('--project <id>', 'project id')
    .option('--json', 'print JSON')
    .action(async (o: { project: string; json?: boolean }) =>
      withServices(async ({ keys }) => {
        const all = await keys.list(o.project);
        if (o.json) return printJson(all);
        if (all.length === 0) return console.log('No keys for this project.');
        printTable(
          all.map((k) => ({
            id: k.id,
            prefix: k.prefix,
            name: k.name,
            created: k.createdAt,
            lastUsed: k.lastUsedAt ?? '-',
            revoked: k.revokedAt ?? '-',
          })),
        );
      }),
    );

  key
    .command('revoke')
    .description('revoke a key; requests with it get 401 from now on')
    .argument('<keyId>', 'key id (key_…)')
    .action(async (keyId: string) =>
      withServices(async ({ keys }) => {
        const k = await keys.revoke(keyId);
        console.log(`Revoked ${k.id} (${k.prefix}…) at ${k.revokedAt}.`);
      }),
    );
}
