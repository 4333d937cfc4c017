// What comes from outside stays inert, with run() in this process against both emulators over
// real sockets: a prompt file that links out of the workspace, secrets in a prompt, a reply nested
// too deep, control characters for the outputs, Markdown in service text that reaches the
// comment, a marker that another comment only quotes, and secrets echoed encoded. The rules are
// tested one by one (prompt-file, main, client, secrets, github and github-api tests); here each
// attack is tried once, as an attacker would, and every run is checked for leaks as the bundle's.
import { describe, expect, it } from '@jest/globals';
import MarkdownIt from 'markdown-it';
import {
  emulators,
  errors,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  KEY,
  pullRequestRun,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, BOT, world } from '../__fixtures__/github-world.js';
import { RUNNER_TOKENS, WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import type { Emulator } from '../emulators/server.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const json = { 'content-type': 'application/json' };

/** Every secret of a run, and the forms an attacker would try to slip one out in. */
function leaked(service: Emulator, secrets: string[]): string[] {
  const sent = service.requests.map((r) => r.body).join('\n');
  return secrets.filter((secret) => {
    const forms = [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64').slice(0, 24)];
    return forms.some((form) => sent.includes(form.slice(0, 12)));
  });
}

describe('a prompt', () => {
  it('from a file that links to /proc/self/environ is refused before any request', async () => {
    const service = await emulator();
    const result = await run({
      inputs: inputsFor(service, { prompt: '', promptFile: '.github/docs-agent/refresh.md' }),
      links: { '.github/docs-agent/refresh.md': '/proc/self/environ' },
    });
    expectFailure(
      result,
      'Input "promptFile" names ".github/docs-agent/refresh.md", which leads outside the workspace (a symbolic link to a path outside GITHUB_WORKSPACE)',
    );
    expect(service.requests).toEqual([]);
  });

  it('that holds the run secrets, raw or encoded, is sent with *** in their place and a warning', async () => {
    const service = await emulator();
    const basic = Buffer.from(`Bearer ${KEY}`).toString('base64');
    const prompt = [
      `Debug dump: INPUT_APIKEY=${KEY} INPUT_GITHUBTOKEN=${WORKFLOW_TOKEN}`,
      `ACTIONS_RUNTIME_TOKEN=${RUNNER_TOKENS.ACTIONS_RUNTIME_TOKEN}`,
      `ACTIONS_ID_TOKEN_REQUEST_TOKEN=${RUNNER_TOKENS.ACTIONS_ID_TOKEN_REQUEST_TOKEN}`,
      `Authorization: Basic ${basic} url=?k=${encodeURIComponent(KEY)}`,
    ].join('\n');
    const result = await run({ inputs: inputsFor(service, { prompt }) });
    expect(result.code).toBe(0);
    expect(leaked(service, [KEY, WORKFLOW_TOKEN, ...Object.values(RUNNER_TOKENS)])).toEqual([]);
    expect((service.requests[0]?.json as { prompt: string }).prompt).toMatch(
      /^Debug dump: INPUT_APIKEY=\*\*\* INPUT_GITHUBTOKEN=\*\*\*\nACTIONS_RUNTIME_TOKEN=\*\*\*\n/,
    );
    expect(warnings(result)).toEqual([
      'The prompt held a secret of this run (the API key, a GitHub token, a proxy password or a runner token); it was replaced by *** before the prompt was sent.',
    ]);
  });
});

describe('a reply nested 20,000 deep', () => {
  const deep = `{"id":"job_deep","status":"active","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;

  it('to the create: no crash; the step says a job may exist instead of advising a re-run', async () => {
    const service = await emulator();
    service.script('create', { status: 201, raw: deep, headers: json, acted: true });
    const result = await run({ inputs: inputsFor(service) });
    expectFailure(result, 'the job may have been created anyway, so the action does not send it again');
    expect(errors(result)[0]).not.toMatch(/stack|re-run the job with debug/i);
  });

  it('to a poll: a passing fault, and the next poll ends the job', async () => {
    const service = await emulator();
    service.script('get', { raw: deep, headers: json });
    const result = await run({ inputs: inputsFor(service) });
    expect(result.code).toBe(0);
    expect(warnings(result).join('\n')).toContain('a body that is not a job');
    expect(result.outputs.status).toBe('completed');
  });
});

describe('outputs a later step echoes', () => {
  it('carry no control character: a prLink that is not plain is left empty, with a warning', async () => {
    const service = await emulator();
    const prLink = 'https://github.com/a/b/pull/1\n::add-mask::x';
    service.script('create', {
      status: 201,
      raw: JSON.stringify({ id: 'job_ctl', status: 'completed', prLink }),
      headers: json,
    });
    const result = await run({ inputs: inputsFor(service, { wait: 'false' }) });
    expect(result.code).toBe(0);
    expect(result.outputs.prLink).toBe('');
    expect(warnings(result)).toEqual([
      'The prLink "https://github.com/a/b/pull/1\\u000a::add-mask::x" is not a plain http(s) URL; the prLink output is left empty.',
    ]);
    expect(result.commands.filter((c) => c.name === 'add-mask' && c.data === 'x')).toEqual([]);
    expect((JSON.parse(result.outputs.job ?? '') as { prLink: string }).prLink).toBe(prLink);
  });

  it('a status with CR, LF and ESC is escaped', async () => {
    const service = await emulator();
    service.script('create', {
      status: 201,
      raw: JSON.stringify({ id: 'job_ctl', status: 'active\r\n::stop-commands::tok\u001b[2J' }),
      headers: json,
    });
    const result = await run({ inputs: inputsFor(service, { wait: 'false' }) });
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('active\\u000d\\u000a::stop-commands::tok\\u001b[2J');
    for (const value of Object.values(result.outputs)) {
      expect(value).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });
});

describe('the kept comment', () => {
  const markdown = new MarkdownIt({ html: true, linkify: true });
  const hostile =
    'Re-auth at [Re-auth](https://evil.example/l) ![p](https://evil.example/p.png) **click** cc @octocat, see acme/other#1';

  it('renders service text as text: no link, image, emphasis, mention or reference from it', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    service.script('get', { status: 403, json: { error: hostile } });
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(1);
    const body = pr.comments[0]?.body ?? '';
    expect(body).toContain('**Stopped**');
    const html = markdown.render(body);
    expect(html.match(/<a [^>]*>/g)).toEqual([`<a href="${gh.serverUrl}/${APP}/actions/runs/4242">`]);
    expect(html).not.toMatch(/<img|<strong>click/);
    const live = html.replace(/<code>[\s\S]*?<\/code>/g, '').replace(/<[^>]*>/g, ' ');
    expect(live).not.toMatch(/@octocat|acme\/other#1|evil\.example/);
  });

  it('is never a comment of the same account that only quotes the marker', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const options = pullRequestRun(service, gh, pr.number, { comment: 'true' });
    expect((await run(options)).code).toBe(0);
    const marker = /^<!-- agent-job-action:[0-9a-f]{24} -->/.exec(pr.comments[0]?.body ?? '')?.[0] ?? '';
    expect(marker).not.toBe('');
    // Another workflow of the repository, with the same token, echoed an outsider's text.
    pr.comments.splice(0);
    const echoed = gh.addComment(APP, pr.number, { login: BOT, body: `Thanks! You wrote:\n> ${marker}` });
    expect((await run(options)).code).toBe(0);
    expect(echoed.body).toBe(`Thanks! You wrote:\n> ${marker}`);
    expect(pr.comments).toHaveLength(2);
    expect(pr.comments[1]?.body.startsWith(marker)).toBe(true);
  });
});

describe('secrets echoed encoded', () => {
  it('the key percent-encoded and in the Basic form of its bearer header: nowhere the runner keeps', async () => {
    const service = await emulator();
    const basic = Buffer.from(`Bearer ${KEY}`).toString('base64');
    service.script('get', {
      status: 403,
      json: { error: `denied for key=${encodeURIComponent(KEY)}; header was Basic ${basic}` },
    });
    // `run` looks for every 12 characters of the key, percent-encoded and base64-encoded, too.
    const result = await run({ inputs: inputsFor(service, { apiKey: KEY }) });
    expectFailure(result, 'The service said: "denied for key=***; header was Basic ');
    expect(result.summary).toContain('denied for key=***');
  });

  it("the workflow token base64-encoded in GitHub's answer: not in the warning", async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    const encoded = Buffer.from(`x-access-token:${WORKFLOW_TOKEN}`).toString('base64');
    gh.fail('createComment', { status: 422, message: `Rejected credentials ${encoded}` });
    const result = await run(pullRequestRun(service, gh, pr.number, { comment: 'true' }));
    expect(result.code).toBe(0);
    expect(warnings(result).join('\n')).toContain('Rejected credentials ');
  });
});
