// Runs the GitHub emulator as a process for the demo: one repository (acme/app) with one pull
// request and a `/docs` comment on it by a member, a docs repository (acme/docs) whose pull
// requests the service's jobs open, and a workflow token that may comment, react and set
// statuses in acme/app and read everywhere. It writes its URLs, the token and the ids, as JSON,
// to --url-file; the request log goes to stderr, without the Authorization header. With --marks,
// each line read from stdin is written back to stderr after the log of every request before it;
// with --state-file too, the reactions to the pull request's comments (no REST route of the
// emulator lists them) are written there, as JSON, just before the line comes back; the end of
// stdin stops the emulator.
import { renameSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startGitHubEmulator } from './github.js';

const DEMO_TOKEN = 'ghs_DemoWorkflowToken000000000000000000000';
const REQUEST = '/docs Document the new --dry-run flag of the deploy command';
/** The pull request's head before and after each of the two pushes the demo plays. */
const HEADS = [
  '1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5',
  '2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5d6',
  '3c4d5e6f708192a3b4c5d6e7f80912a3b4c5d6e7',
];
/** What each push changed: the first the code, the second only a test (outside the demo's `paths`). */
const file = (filename: string) => ({ filename, status: 'modified', additions: 4, deletions: 1 });

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'url-file': { type: 'string' },
      prefix: { type: 'string' },
      marks: { type: 'boolean' },
      'state-file': { type: 'string' },
    },
    strict: true,
  });
  const prefix = values.prefix === '/api/v3' ? '/api/v3' : '';
  const github = await startGitHubEmulator({ prefix });
  github.grant(DEMO_TOKEN, { login: 'github-actions[bot]', type: 'Bot', read: '*', write: ['acme/app'] });
  // octocat asks for docs: someone with write access, as GitHub's collaborator API tells the gate.
  github.collaborator('acme/app', 'octocat', 'write');
  const pr = github.thread('acme/app', {
    headSha: HEADS[0],
    files: [file('src/deploy.ts'), file('src/deploy.test.ts')],
  });
  github.comparison('acme/app', `${HEADS[0]}...${HEADS[1]}`, {
    commits: [],
    files: [file('src/deploy.ts'), file('src/deploy.test.ts')],
  });
  github.comparison('acme/app', `${HEADS[1]}...${HEADS[2]}`, {
    commits: [],
    files: [file('src/deploy.test.ts')],
  });
  const request = github.addComment('acme/app', pr.number, { login: 'octocat', body: REQUEST });
  // The docs pull requests the service's jobs open (job n opens #n).
  for (let n = 0; n < 5; n++) github.thread('acme/docs');
  const described = JSON.stringify({
    apiUrl: github.apiUrl,
    serverUrl: github.serverUrl,
    token: DEMO_TOKEN,
    repository: 'acme/app',
    pullRequest: pr.number,
    heads: HEADS,
    request: { id: request.id, body: REQUEST },
    docsRepository: `${github.serverUrl}/acme/docs`,
  });
  if (values['url-file']) {
    writeFileSync(`${values['url-file']}.tmp`, described);
    renameSync(`${values['url-file']}.tmp`, values['url-file']);
  }
  process.stdout.write(`GitHub emulator listening on ${github.apiUrl}\n`);
  let seen = 0;
  const flush = (): void => {
    for (const request of github.requests.slice(seen))
      process.stderr.write(`${request.method} ${request.path}\n`);
    seen = github.requests.length;
    for (const violation of github.violations.splice(0))
      process.stderr.write(`contract violation: ${violation}\n`);
  };
  const log = setInterval(flush, 100);
  const stop = (): void => {
    clearInterval(log);
    github.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const stateFile = values['state-file'];
  if (values.marks) {
    const marks = createInterface({ input: process.stdin });
    marks.on('line', (line) => {
      flush();
      if (stateFile) {
        const comments = github
          .get('acme/app', pr.number)
          .comments.map(({ id, login, reactions }) => ({ id, login, reactions }));
        writeFileSync(
          `${stateFile}.tmp`,
          JSON.stringify({ repository: 'acme/app', number: pr.number, comments }),
        );
        renameSync(`${stateFile}.tmp`, stateFile);
      }
      process.stderr.write(`${line}\n`);
    });
    // The end of stdin is the end of the caller: the emulator stops with it rather than outlive it.
    marks.once('close', stop);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `GitHub emulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
