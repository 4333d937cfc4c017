// Runs the GitHub emulator as a process for the demo: one repository (acme/app) with one pull
// request, and a workflow token that may comment on it. It writes its URLs and the token, as
// JSON, to --url-file; the request log goes to stderr, without the Authorization header.
import { renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startGitHubEmulator } from './github.js';

const DEMO_TOKEN = 'ghs_DemoWorkflowToken000000000000000000000';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'url-file': { type: 'string' }, prefix: { type: 'string' } },
    strict: true,
  });
  const prefix = values.prefix === '/api/v3' ? '/api/v3' : '';
  const github = await startGitHubEmulator({ prefix });
  github.grant(DEMO_TOKEN, { login: 'github-actions[bot]', type: 'Bot', read: '*', write: ['acme/app'] });
  const pr = github.thread('acme/app');
  const described = JSON.stringify({
    apiUrl: github.apiUrl,
    serverUrl: github.serverUrl,
    token: DEMO_TOKEN,
    repository: 'acme/app',
    pullRequest: pr.number,
  });
  if (values['url-file']) {
    writeFileSync(`${values['url-file']}.tmp`, described);
    renameSync(`${values['url-file']}.tmp`, values['url-file']);
  }
  process.stdout.write(`GitHub emulator listening on ${github.apiUrl}\n`);
  let seen = 0;
  const log = setInterval(() => {
    for (const request of github.requests.slice(seen))
      process.stderr.write(`${request.method} ${request.path}\n`);
    seen = github.requests.length;
    for (const violation of github.violations.splice(0))
      process.stderr.write(`contract violation: ${violation}\n`);
  }, 100);
  const stop = (): void => {
    clearInterval(log);
    github.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `GitHub emulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
