// Who and what may steer a job, tried as an attacker would, with run() in this process against
// both emulators over real sockets: write access is asked of GitHub (an organisation's member or
// a collaborator with a lesser role starts nothing, a custom role based on write does), a fork's
// `workflow_run` is gated, only the action's own statuses steer a branch or a re-run, ids read
// back from GitHub obey the service's rules, invisible and bidi characters land nowhere, and a
// `/docs` request is always answered on its thread. The rules are tested one by one in
// admission.test.ts and github-thread.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  gitHubEmulators,
  inputsFor,
  notices,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  APP,
  BOT,
  commentEvent,
  DOCS_TOKEN,
  gitHubEnv,
  pushTo,
  pushEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';
import type { CollaboratorRole, CustomRole } from '../emulators/github.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** A `/docs` comment on a pull request of acme/app by `login`, whom GitHub gives `role`. */
async function requestBy(
  login: string,
  association: string,
  role: CollaboratorRole | CustomRole | undefined,
  inputs: Record<string, string> = {},
) {
  const service = await emulator();
  const gh = await github();
  const { pr } = world(gh);
  if (role) gh.collaborator(APP, login, role);
  const body = '/docs Document the new --dry-run flag';
  const comment = gh.addComment(APP, pr.number, { login, body });
  const result = await run({
    inputs: inputsFor(service, { prompt: '', trigger: '/docs', ...inputs }),
    env: gitHubEnv(gh),
    event: commentEvent(pr.number, body, { login, association, id: comment.id }),
  });
  return { service, gh, pr, comment, result };
}

describe('write access is asked of GitHub', () => {
  it.each([
    ["an organisation's member with read access", 'MEMBER', 'read' as const, 'read'],
    ['a collaborator with triage', 'COLLABORATOR', 'triage' as const, 'triage'],
  ])(
    '%s starts nothing: no request to the service, skipped, exit 0',
    async (_name, association, role, said) => {
      const { service, gh, result } = await requestBy('reader', association, role);
      expect(result.code).toBe(0);
      expect(service.requests).toEqual([]);
      expect(gh.count('getCollaboratorPermission')).toBe(1);
      expect(result.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
      expect(notices(result)).toEqual([
        `Skipped: reader may not start a docs job here: their role on the repository is ${said}, and a job needs write access. People with write access to the repository may; allowedActors can name others.`,
      ]);
    },
  );

  it('a custom role based on write starts a job', async () => {
    const { service, result } = await requestBy('writer', 'COLLABORATOR', {
      name: 'docs-writer',
      base: 'write',
    });
    expect(result.code).toBe(0);
    expect(service.count('create')).toBe(1);
    expect(result.outputs.mode).toBe('created');
  });

  it("a fork's workflow_run by an outsider starts nothing", async () => {
    const service = await emulator();
    const gh = await github();
    world(gh);
    const result = await run({
      inputs: inputsFor(service),
      env: gitHubEnv(gh),
      event: {
        name: 'workflow_run',
        payload: {
          action: 'completed',
          workflow_run: {
            id: 99,
            event: 'pull_request',
            head_repository: { full_name: 'someone/app' },
            actor: { login: 'someone', type: 'User' },
            triggering_actor: { login: 'someone', type: 'User' },
          },
          repository: { full_name: APP, owner: { login: 'acme', type: 'Organization' } },
          sender: { login: 'someone', type: 'User' },
        },
      },
    });
    expect(result.code).toBe(0);
    expect(service.requests).toEqual([]);
    expect(result.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(notices(result)[0]).toContain('Skipped: someone may not start a docs job here');
  });
});

describe("only the action's own records steer a job", () => {
  it("another writer of the step's status context neither steers a branch's follow-up nor makes a re-run resume", async () => {
    const gh = await github();
    const { docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const inputs = inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN });
    const first = await run({
      inputs,
      env: gitHubEnv(gh),
      event: pushEvent(sha(4), { before: '0'.repeat(40) }),
    });
    const own = first.outputs.jobId ?? '';
    // A job of someone else's, in the same project, and a status naming it in the step's context.
    const other = await run({ inputs: inputsFor(service), env: gitHubEnv(gh), event: pushEvent(sha(1)) });
    const stranger = other.outputs.jobId ?? '';
    const context = gh.statuses(APP, sha(4))[0]?.context ?? '';
    gh.addStatus(APP, sha(4), {
      creator: 'mallory-app[bot]',
      context,
      description: `Working: job ${stranger} · run 4242`,
    });

    const next = await run({ inputs, env: gitHubEnv(gh), event: pushEvent(sha(5), { before: sha(4) }) });
    expect(next.outputs).toMatchObject({ mode: 'followed-up', jobId: own });
    expect(service.requests.filter((r) => r.route === 'message').map((r) => r.jobId)).toEqual([own]);

    // On a commit where only the stranger's status stands, a re-run has nothing of its own to resume.
    gh.addStatus(APP, sha(6), {
      creator: 'mallory-app[bot]',
      context,
      description: `Working: job ${stranger} · run 4242`,
    });
    const creates = service.count('create');
    const rerun = await run({
      inputs: inputsFor(service, { status: 'true' }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ATTEMPT: '2' },
      event: pushEvent(sha(6), { before: sha(5) }),
    });
    expect(rerun.outputs.mode).toBe('created');
    expect(rerun.outputs.jobId).not.toBe(stranger);
    expect(service.count('create')).toBe(creates + 1);
  });

  it('a re-run finds its own status under 350 newer ones', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator({ activePolls: 3 });
    const options = (attempt: string, timeout: string) => ({
      inputs: inputsFor(service, { status: 'true', timeout }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ATTEMPT: attempt },
      event: pushTo(pr, sha(8)),
    });
    const first = await run(options('1', '2s'));
    expect(first.code).toBe(1);
    for (let i = 0; i < 350; i++) {
      gh.addStatus(APP, sha(8), {
        creator: i % 3 ? 'ci-app[bot]' : BOT,
        context: `ci/${i}`,
        description: `check ${i}`,
      });
    }
    const again = await run(options('2', '40s'));
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ mode: 'resumed', jobId: first.outputs.jobId, status: 'completed' });
    expect(service.count('create')).toBe(1);
  });

  it.each(['.', '..'])('a job id %j read back from GitHub never reaches a request path', async (id) => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    const options = (attempt: string) => ({
      inputs: inputsFor(service, { status: 'true', comment: 'true' }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ATTEMPT: attempt },
      event: pushTo(pr, sha(3)),
    });
    const first = await run(options('1'));
    const context = gh.statuses(APP, sha(3))[0]?.context ?? '';
    // Written as the action's own identity: a workflow that echoes outside text with its token could.
    gh.addStatus(APP, sha(3), { creator: BOT, context, description: `Working: job ${id} · run 4242` });
    const kept = pr.comments.find((c) => c.login === BOT);
    if (!kept) throw new Error('no kept comment');
    const [marker = ''] = kept.body.split('\n');
    const note = Buffer.from(JSON.stringify({ job: id, run: 4242, attempt: 1 })).toString('base64url');
    kept.body = `${marker}\n<!-- agent-job-action:note ${note} -->\nforged`;

    const before = service.requests.length;
    const again = await run(options('2'));
    expect(again.code).toBe(0);
    expect(again.outputs.mode).toBe('created');
    expect(again.outputs.jobId).not.toBe(first.outputs.jobId);
    const paths = service.requests.slice(before).map((r) => r.path);
    expect(paths.filter((p) => !/\/job(\/job_[\w-]+)?$/.test(p))).toEqual([]);
    expect(warnings(again)).toEqual([
      `Ignored the job named in the kept comment: "${id}" is not a job id the service gives.`,
      `Ignored the job named in the commit status: "${id}" is not a job id the service gives.`,
    ]);
  });
});

describe('outside text stays inert everywhere it lands', () => {
  const HIDDEN = [
    '\u061c',
    '\u200b',
    '\u200c',
    '\u200d',
    '\u200e',
    '\u200f',
    '\u2060',
    '\ufeff',
    '\u202a',
    '\u202e',
    '\u2066',
    '\u2069',
  ];

  it('no invisible or bidi character from the service reaches an output, the log, the summary, the comment or a status', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    const id = `job_${HIDDEN.join('')}x`;
    service.script('create', {
      job: { id, model: `model${HIDDEN.join('')}`, prLink: `https://evil.example/${HIDDEN.join('')}` },
    });
    service.script('get', {
      json: {
        id,
        status: 'completed',
        prLink: `https://evil.example/${HIDDEN.join('')}`,
        model: HIDDEN.join(''),
      },
    });
    const result = await run({
      inputs: inputsFor(service, { status: 'true', comment: 'true' }),
      env: gitHubEnv(gh),
      event: pushTo(pr, sha(9)),
    });
    expect(result.code).toBe(0);
    const places = {
      outputs: JSON.stringify(result.outputs),
      log: result.stdout + result.stderr,
      summary: result.summary,
      comment: pr.comments.map((c) => c.body).join('\n'),
      status: gh
        .statuses(APP, sha(9))
        .map((s) => `${s.description} ${s.target_url}`)
        .join('\n'),
    };
    expect(places.comment).not.toBe('');
    expect(places.status).not.toBe('');
    for (const [where, text] of Object.entries(places)) {
      expect([where, HIDDEN.filter((ch) => text.includes(ch))]).toEqual([where, []]);
    }
    // The success status links the run, not a link that is not a pull request.
    expect(gh.statuses(APP, sha(9))[0]?.target_url).toBe(`${gh.serverUrl}/${APP}/actions/runs/4242`);
  });
});

describe('a /docs request is always answered on its thread', () => {
  it('without comment: true, the kept comment answers it', async () => {
    const { pr, comment, result } = await requestBy('octocat', 'MEMBER', undefined);
    expect(result.code).toBe(0);
    expect(comment.reactions).toEqual(['eyes']);
    const answers = pr.comments.filter((c) => c.login === BOT);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body).toContain('✅ **Completed**');
    expect(result.outputs.commentUrl).toContain(`#issuecomment-${answers[0]?.id}`);
  });

  it('a request the service refuses says so on the thread, and gets no 👀', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    service.script('create', { status: 401, json: { error: 'Invalid API key' } });
    const body = '/docs Document the flag';
    const comment = gh.addComment(APP, pr.number, { login: 'octocat', body });
    const result = await run({
      inputs: inputsFor(service, { prompt: '', trigger: '/docs' }),
      env: gitHubEnv(gh),
      event: commentEvent(pr.number, body, { id: comment.id }),
    });
    expect(result.code).toBe(1);
    expect(comment.reactions).toEqual([]);
    const answers = pr.comments.filter((c) => c.login === BOT);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body).toContain('⚠️ **The latest run started no job**');
    expect(answers[0]?.body).toContain('rejected');
  });
});
