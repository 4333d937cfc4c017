import type { Command } from 'commander';
import { HOSTS } from '../projects/projects.js';
import type { HostKind, Project } from '../projects/projects.js';
import { printJson, printTable, withServices } from './common.js';

const collect = (value: string, previous: string[]) => [...previous, value];

function describe(p: Project): Record<string, string> {
  return {
    id: p.id,
    name: p.name,
    host: p.host,
    repository: p.repository,
    ref: p.ref,
    docsRoot: p.docsRoot,
    model: p.model ?? '(server default)',
  };
}

export function registerProject(program: Command): void {
  const project = program.command('project').description('create and list projects');

  project
    .command('create')
    .description('create a project for a docs repository')
    .requiredOption('--name <name>', 'a name people recognise')
    .requiredOption(
      '--repository <url-or-path>',
      'the docs repository (a path or file:// URL for the local host)',
    )
    .option('--ref <ref>', 'the branch jobs start from', 'main')
    .option('--host <host>', `code host: ${HOSTS.join(', ')}`, 'local')
    .option('--docs-root <dir>', 'folder of the docs inside the repository', '.')
    .option('--model <provider:model>', 'default model for this project (else REDLINE_MODEL)')
    .option('--allow-model <provider:model>', 'another model jobs may ask for (repeatable)', collect, [])
    .option('--json', 'print JSON')
    .action(
      async (o: {
        name: string;
        repository: string;
        ref: string;
        host: string;
        docsRoot: string;
        model?: string;
        allowModel: string[];
        json?: boolean;
      }) =>
        withServices(async ({ projects }) => {
          const p = await projects.create({
            name: o.name,
            repository: o.repository,
            ref: o.ref,
            host: o.host as HostKind,
            docsRoot: o.docsRoot,
            model: o.model ?? null,
            allowedModels: o.allowModel,
          });
          if (o.json) return printJson(p);
          console.log(`Created project ${p.id}`);
          printTable([describe(p)]);
        }),
    );

  project
    .command('list')
    .description('list projects')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) =>
      withServices(async ({ projects }) => {
        const all = await projects.list();
        if (o.json) return printJson(all);
        if (all.length === 0) return console.log('No projects yet: redline project create --help');
        printTable(all.map(describe));
      }),
    );
}
