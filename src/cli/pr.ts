import type { Command } from 'commander';
import { RedlineError } from '../errors.js';
import { getPullRequest, listPullRequests } from '../hosts/local.js';
import { printJson, printTable, withServices } from './common.js';

export function registerPr(program: Command): void {
  const pr = program.command('pr').description('pull requests of projects on the local code host');

  pr.command('list')
    .description("list a project's pull requests")
    .requiredOption('--project <id>', 'project id')
    .option('--json', 'print JSON (without diffs)')
    .action(async (o: { project: string; json?: boolean }) =>
      withServices(async ({ database, config, projects }) => {
        if (!(await projects.get(o.project)))
          throw new RedlineError('not_found', `Project ${o.project} not found.`);
        const all = await listPullRequests(database.db, config.publicUrl, o.project);
        if (o.json) return printJson(all.map(({ diff: _diff, ...rest }) => rest));
        if (all.length === 0) return console.log('No pull requests for this project.');
        printTable(
          all.map((p) => ({
            number: `#${p.number}`,
            state: p.draft ? 'draft' : p.state,
            title: p.title,
            branch: p.head,
            updated: p.updatedAt,
          })),
        );
      }),
    );

  pr.command('show')
    .description('show a pull request with its diff')
    .argument('<number>', 'pull request number')
    .requiredOption('--project <id>', 'project id')
    .option('--json', 'print JSON')
    .action(async (number: string, o: { project: string; json?: boolean }) =>
      withServices(async ({ database, config }) => {
        const n = Number(number.replace(/^#/, ''));
        if (!Number.isInteger(n) || n < 1)
          throw new RedlineError('invalid_request', `"${number}" is not a pull request number`);
        const p = await getPullRequest(database.db, config.publicUrl, o.project, n);
        if (!p) throw new RedlineError('not_found', `Pull request #${n} not found in project ${o.project}.`);
        if (o.json) return printJson(p);
        console.log(`#${p.number} ${p.title}${p.draft ? ' (draft)' : ''}`);
        console.log(`${p.head} -> ${p.base} · ${p.state} · ${p.url}\n`);
        console.log(`${p.body}\n`);
        process.stdout.write(p.diff);
      }),
    );
}
