// Superseded docs pull requests, played with run() in this process against both emulators: when
// the service refuses a follow-up to a finished job and a new job takes the thread over, the
// earlier job's docs pull request is closed with a comment linking the new job's, once there is
// one (now, or by a later run); kept open, with the comment only, when someone other than its
// opener committed to it; left alone without a docsToken; a token that may not close it is one
// warning.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  gitHubEmulators,
  inputsFor,
  runHere as play,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  APP,
  BOT,
  DOCS,
  DOCS_TOKEN,
  gitHubEnv,
  pullRequestAt,
  pushEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import type { PullCommit } from '../emulators/github.js';
import type { EmulatorOptions } from '../emulators/server.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
/** The account the service opens its docs pull requests with (any name: the opener is compared). */
const SERVICE = 'docs-writer[bot]';

/**
 * A pull request of acme/app whose docs live in acme/docs, where the service's jobs open docs
 * pull requests #1, #2 … in the order they are created, and refuses messages to finished jobs.
 * The docs pull requests are the service's: opened by its account, their commits made through
 * GitHub's API (GitHub as committer) unless a test says otherwise.
 */
async function refusingWorld(commits?: (head: string) => PullCommit[], options: EmulatorOptions = {}) {
  const gh = await github();
  const { pr, docsPr } = world(gh);
  const successor = gh.thread(DOCS);
  for (const docs of [docsPr, successor]) {
    docs.opener = SERVICE;
    docs.pullCommits = commits?.(docs.headSha) ?? [
      { sha: docs.headSha, author: SERVICE, committer: 'web-flow' },
    ];
  }
  const service = await emulator({
    finishedJobMessages: { status: 400 },
    docsRepoUrl: `${gh.serverUrl}/${DOCS}`,
    ...options,
  });
  const step = threadStep(service, gh);
  /** A push of `head` to the pull request (its head moves with it), as run `runId`. */
  const push = (head: number, runId: number, inputs: Record<string, string> = {}) => {
    pr.headSha = sha(head);
    return play(
      step(pullRequestAt(pr.number, sha(head), head === 1 ? 'opened' : 'synchronize'), inputs, {
        GITHUB_RUN_ID: String(runId),
      }),
    );
  };
  const link = (n: number) => `${gh.serverUrl}/${DOCS}/pull/${n}`;
  const kept = () => pr.comments.find((c) => c.login === BOT)?.body ?? '';
  return { gh, pr, docsPr, successor, service, step, push, link, kept };
}

/** The live link the thread's comment gives a docs pull request. */
/** What the action said on a docs PR besides the note that names its thread. */
const saidOn = (pr: { comments: { body: string }[] }) =>
  pr.comments.filter((c) => !c.body.startsWith('<!-- agent-job-docs-of '));
const anchor = (link: string) => `<a href="${link}">\`${link}\`</a>`;

describe('a docs pull request superseded when a new job takes the thread over', () => {
  it('is closed once the new job has its docs pull request, with a comment that links it', async () => {
    const { gh, docsPr, successor, service, push, link, kept } = await refusingWorld();
    const first = await push(1, 101);
    expect(first.outputs).toMatchObject({ mode: 'created', prLink: link(1) });
    const second = await push(2, 102);
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created', prLink: link(2) });
    expect(service.count('create')).toBe(2);
    expect(warnings(second)).toEqual([]);

    expect(docsPr.state).toBe('closed');
    expect(successor.state).toBe('open');
    expect(saidOn(docsPr)).toHaveLength(1);
    expect(saidOn(docsPr)[0]).toMatchObject({ login: 'docs-app[bot]' });
    expect(saidOn(docsPr)[0]?.body).toContain(`Superseded by ${anchor(link(2))}.`);
    expect(saidOn(docsPr)[0]?.body).toContain('Closed, as only its opener committed to it.');
    // Only the docs token reaches the docs repository, and it is what closed the pull request.
    expect(gh.requests.filter((r) => r.route === 'updatePull').map((r) => [r.path, r.token, r.json])).toEqual(
      [[`/repos/${DOCS}/pulls/1`, DOCS_TOKEN, { state: 'closed' }]],
    );
    expect(kept()).toContain(
      `continues the thread. The earlier docs pull request ${anchor(link(1))} was closed, with a comment that links its successor.`,
    );
    expect(second.stdout).toContain(
      `Closed the earlier docs pull request ${DOCS}#1: ${link(2)} supersedes it.`,
    );
    expect(second.stdout).toContain(
      `a new job continues the thread. The run's end says what becomes of the docs pull request ${link(1)} that job ${first.outputs.jobId ?? ''} named.`,
    );
    expect(readNote(kept())?.superseded).toBeUndefined();
  });

  it('stays open, with the comment only, when someone other than its opener committed to it', async () => {
    const { gh, docsPr, push, link, kept } = await refusingWorld((head) => [
      { sha: sha(8), author: SERVICE, committer: 'web-flow' },
      { sha: head, author: 'octocat', committer: 'octocat' },
    ]);
    await push(1, 201);
    const second = await push(2, 202);
    expect(second.code).toBe(0);
    expect(warnings(second)).toEqual([]);
    expect(docsPr.state).toBe('open');
    expect(gh.count('updatePull')).toBe(0);
    expect(saidOn(docsPr)).toHaveLength(1);
    expect(saidOn(docsPr)[0]?.body).toContain(`Superseded by ${anchor(link(2))}.`);
    expect(saidOn(docsPr)[0]?.body).toContain(
      'It stays open, as someone other than its opener committed to it',
    );
    expect(kept()).toContain(
      `The earlier docs pull request ${anchor(link(1))} stays open, as someone other than its opener committed to it; a comment on it links its successor.`,
    );
  });

  it("stays open, with the comment only, when another account than its successor's opened it", async () => {
    const { gh, docsPr, push, link, kept } = await refusingWorld();
    docsPr.opener = 'octocat';
    docsPr.pullCommits = [{ sha: docsPr.headSha, author: 'octocat', committer: 'octocat' }];
    await push(1, 221);
    const second = await push(2, 222);
    expect(second.code).toBe(0);
    expect(docsPr.state).toBe('open');
    expect(gh.count('updatePull')).toBe(0);
    expect(saidOn(docsPr)[0]?.body).toContain(
      'It stays open, as the account that opened its successor did not open it',
    );
    expect(kept()).toContain(
      `The earlier docs pull request ${anchor(link(1))} stays open, as the account that opened its successor did not open it`,
    );
  });

  it('stays open, with the comment only, when a commit is linked to no account', async () => {
    const { docsPr, push } = await refusingWorld((head) => [{ sha: head, author: null, committer: null }]);
    await push(1, 251);
    expect((await push(2, 252)).code).toBe(0);
    expect(docsPr.state).toBe('open');
    expect(saidOn(docsPr)).toHaveLength(1);
  });

  it('is never a pull request the action keeps a thread on, whatever link the service gave and whoever opened it', async () => {
    const { gh, successor, service, push, link } = await refusingWorld();
    // In a monorepo the docs token reaches the code; a code pull request the service's account
    // opened, with this action's thread on it, is named as the first job's docs pull request.
    gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS, APP], write: [DOCS, APP] });
    const code = gh.thread(APP, { opener: SERVICE });
    code.pullCommits = [{ sha: code.headSha, author: SERVICE, committer: 'web-flow' }];
    gh.addComment(APP, code.number, {
      login: BOT,
      body: '<!-- agent-job-action:0123456789abcdef01234567 -->\nDocs job',
    });
    const codeLink = `${gh.serverUrl}/${APP}/pull/${code.number}`;
    service.script('get', { job: { status: 'completed', prLink: codeLink } });
    const first = await push(1, 111);
    expect(first.outputs).toMatchObject({ mode: 'created', prLink: codeLink });
    const second = await push(2, 112);
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created' });
    expect(second.outputs.prLink).toBe(link(successor.number));
    expect(code.state).toBe('open');
    expect(gh.requests.filter((r) => r.route === 'updatePull')).toEqual([]);
    expect(warnings(second)).toEqual([
      `The earlier docs pull request ${APP}#${code.number} is a pull request this action keeps a docs thread on, not a docs pull request; it is not closed.`,
    ]);
  });

  it('is left alone without a docsToken, and the thread says it stays open', async () => {
    const { gh, docsPr, push, link, kept } = await refusingWorld();
    // The workflow's own token reaches both repositories: only a docsToken given is used to close.
    gh.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: [APP, DOCS], write: [APP, DOCS] });
    await push(1, 301, { docsToken: '' });
    const second = await push(2, 302, { docsToken: '' });
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created', prLink: link(2) });
    expect(warnings(second)).toEqual([]);
    expect(docsPr.state).toBe('open');
    expect(saidOn(docsPr)).toEqual([]);
    expect(gh.count('updatePull') + gh.count('listPullCommits')).toBe(0);
    expect(kept()).toContain(
      `continues the thread. The earlier docs pull request ${anchor(link(1))} stays open: no docsToken was given, and the workflow's own token closes pull requests only in this repository.`,
    );
    expect(second.stdout).toContain(
      `The earlier docs pull request ${link(1)} stays open: no docsToken was given, and the workflow's own token closes a pull request only in ${APP}.`,
    );
  });

  it('a token that may not close it gives one warning, and the step still succeeds', async () => {
    const { gh, docsPr, push, link, kept } = await refusingWorld();
    gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS] });
    await push(1, 401);
    const second = await push(2, 402);
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created', status: 'completed', prLink: link(2) });
    expect(warnings(second)).toEqual([
      `Could not close the superseded docs pull request ${DOCS}#1 (403 "Resource not accessible by integration"): docsToken needs pull-requests: write on ${DOCS}; grant it in the workflow's permissions block or to the token.`,
      // The same token may not name the thread on the new docs PR either: said, and nothing else.
      `Could not name the thread on the docs pull request ${DOCS}#2 (403 "Resource not accessible by integration"): docsToken needs pull-requests: write (or issues: write) on ${DOCS}; grant it in the workflow's permissions block or to the token. The docs pull request does not say which thread it is for.`,
    ]);
    expect(docsPr.state).toBe('open');
    expect(saidOn(docsPr)).toEqual([]);
    expect(kept()).toContain(
      `continues the thread. The earlier docs pull request ${anchor(link(1))} stays open: GitHub refused to close it (the workflow run's warning says why).`,
    );
  });

  it('waits in the thread note while the new job has none, and a later run that sees it closes the earlier one', async () => {
    // A job plays active for one read: the next run's read of it finds it still working.
    const { docsPr, successor, service, push, link, kept } = await refusingWorld(undefined, {
      activePolls: 1,
    });
    await push(1, 501);
    // The new job goes on without this run: it has no docs pull request yet.
    const second = await push(2, 502, { wait: 'false' });
    expect(second.code).toBe(0);
    expect(second.outputs.mode).toBe('created');
    const jobId = second.outputs.jobId ?? '';
    expect(docsPr.state).toBe('open');
    expect(saidOn(docsPr)).toEqual([]);
    expect(kept()).toContain(
      `The earlier docs pull request ${anchor(link(1))} stays open while job \`${jobId}\` has no docs pull request; the thread's run that finds one closes the earlier one then, or says why it cannot.`,
    );
    expect(readNote(kept())?.superseded).toEqual([link(1)]);

    // The next push follows the new job up (it is active), which ends with its docs pull request.
    const third = await push(3, 503);
    expect(third.outputs).toMatchObject({ mode: 'followed-up', jobId, prLink: link(2) });
    expect(warnings(third)).toEqual([]);
    expect(docsPr.state).toBe('closed');
    expect(successor.state).toBe('open');
    expect(saidOn(docsPr)).toHaveLength(1);
    expect(saidOn(docsPr)[0]?.body).toContain(`Superseded by ${anchor(link(2))}.`);
    expect(kept()).toContain(
      `↪️ The earlier docs pull request ${anchor(link(1))} was closed, with a comment that links its successor.`,
    );
    expect(readNote(kept())?.superseded).toBeUndefined();
    expect(service.count('create')).toBe(2);
  });

  it("is never a pull request the thread's record does not hold as the earlier job's docs pull request, whatever the service names", async () => {
    const { gh, docsPr, successor, service, push, link, kept } = await refusingWorld();
    // The docs token reaches the code too; a code pull request the service's account opened,
    // with no kept comment of this action on it, that only the service names as a docs PR.
    gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS, APP], write: [DOCS, APP] });
    const code = gh.thread(APP, { opener: SERVICE });
    code.pullCommits = [{ sha: code.headSha, author: SERVICE, committer: 'web-flow' }];
    const codeLink = `${gh.serverUrl}/${APP}/pull/${code.number}`;
    const first = await push(1, 121);
    expect(first.outputs).toMatchObject({ mode: 'created', prLink: link(1) });
    expect(readNote(kept())?.docsPr).toBe(link(1));
    // The service now says the first job's docs pull request is the code pull request.
    const firstJob = service.jobs.get(first.outputs.jobId ?? '');
    if (firstJob) firstJob.prLink = codeLink;
    const second = await push(2, 122);
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created', prLink: link(successor.number) });
    expect(warnings(second)).toEqual([]);
    expect(code.state).toBe('open');
    expect(docsPr.state).toBe('open');
    expect(code.comments).toEqual([]);
    expect(gh.count('updatePull')).toBe(0);
    const jobId = first.outputs.jobId ?? '';
    expect(second.stdout).toContain(
      `The service names ${codeLink} as the docs pull request of agent job ${jobId}, which the thread's record does not hold as that job's (it holds ${link(1)}): it is not closed.`,
    );
    expect(kept()).toContain(
      `continues the thread. The service names ${anchor(codeLink)} as job \`${jobId}\`'s docs pull request, but the thread's record does not: it is not closed.`,
    );
    expect(readNote(kept())?.superseded).toBeUndefined();
  });

  it("in a monorepo without a docsToken, is closed with the workflow's own token", async () => {
    const gh = await github();
    const { pr } = world(gh);
    const [earlier, later] = [gh.thread(APP, { opener: SERVICE }), gh.thread(APP, { opener: SERVICE })];
    for (const docs of [earlier, later])
      docs.pullCommits = [{ sha: docs.headSha, author: SERVICE, committer: 'web-flow' }];
    const link = (n: number) => `${gh.serverUrl}/${APP}/pull/${n}`;
    const final = { status: 'completed' as const, prLink: link(earlier.number) };
    const service = await emulator({ finishedJobMessages: { status: 400 }, final });
    const step = threadStep(service, gh);
    const push = (head: number, runId: number) => {
      pr.headSha = sha(head);
      return play(
        step(
          pullRequestAt(pr.number, sha(head), head === 1 ? 'opened' : 'synchronize'),
          { docsToken: '' },
          {
            GITHUB_RUN_ID: String(runId),
          },
        ),
      );
    };
    expect((await push(1, 131)).outputs).toMatchObject({ mode: 'created', prLink: link(earlier.number) });
    final.prLink = link(later.number);
    const second = await push(2, 132);
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created', prLink: link(later.number) });
    expect(warnings(second)).toEqual([]);
    expect(earlier.state).toBe('closed');
    expect(later.state).toBe('open');
    expect(gh.requests.filter((r) => r.route === 'updatePull').map((r) => [r.path, r.token, r.json])).toEqual(
      [[`/repos/${APP}/pulls/${earlier.number}`, WORKFLOW_TOKEN, { state: 'closed' }]],
    );
    expect(saidOn(earlier)).toHaveLength(1);
    expect(saidOn(earlier)[0]).toMatchObject({ login: BOT });
    expect(saidOn(earlier)[0]?.body).toContain(`Superseded by ${anchor(link(later.number))}.`);
    expect(second.stdout).toContain(
      `Closed the earlier docs pull request ${APP}#${earlier.number}: ${link(later.number)} supersedes it.`,
    );
  });

  it("on a branch's thread, is closed with the docsToken as on a pull request's", async () => {
    const { gh, docsPr, successor, service, step, link } = await refusingWorld();
    gh.history(APP, [sha(1)]);
    for (const n of [1, 2]) gh.commit(APP, { sha: sha(n), message: `Push ${n}`, files: [] });
    const first = await play(
      step(pushEvent(sha(1), { before: '0'.repeat(40) }), { context: 'none' }, { GITHUB_RUN_ID: '151' }),
    );
    expect(first.outputs).toMatchObject({ mode: 'created', prLink: link(1) });
    gh.history(APP, [sha(2), sha(1)]);
    const second = await play(
      step(pushEvent(sha(2), { before: sha(1) }), { context: 'none' }, { GITHUB_RUN_ID: '152' }),
    );
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'created', prLink: link(successor.number) });
    expect(service.count('create')).toBe(2);
    expect(warnings(second)).toEqual([]);
    expect(docsPr.state).toBe('closed');
    expect(successor.state).toBe('open');
    expect(saidOn(docsPr)[0]?.body).toContain(`Superseded by ${anchor(link(2))}.`);
    expect(second.stdout).toContain(
      `Closed the earlier docs pull request ${DOCS}#1: ${link(2)} supersedes it.`,
    );
  });

  it("on a branch's thread, the status of the new job at work names it, and the report run that writes the job's end closes it", async () => {
    const { gh, docsPr, successor, service, step, link } = await refusingWorld(undefined, { activePolls: 1 });
    gh.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: [APP], write: [APP], contents: [APP] });
    gh.history(APP, [sha(1)]);
    for (const n of [1, 2]) gh.commit(APP, { sha: sha(n), message: `Push ${n}`, files: [] });
    await play(
      step(pushEvent(sha(1), { before: '0'.repeat(40) }), { context: 'none' }, { GITHUB_RUN_ID: '161' }),
    );
    gh.history(APP, [sha(2), sha(1)]);
    const second = await play(
      step(
        pushEvent(sha(2), { before: sha(1) }),
        { context: 'none', wait: 'false' },
        { GITHUB_RUN_ID: '162' },
      ),
    );
    expect(second.code).toBe(0);
    expect(warnings(second)).toEqual([]);
    const jobId = second.outputs.jobId ?? '';
    expect(second.outputs.mode).toBe('created');
    expect(docsPr.state).toBe('open');
    expect(second.stdout).toContain(
      `The earlier docs pull request ${link(1)} stays open while agent job ${jobId} has no docs pull request; the branch's commit status names it, and the run that writes the job's end closes it then, or says why it cannot.`,
    );
    expect(gh.statuses(APP, sha(2)).map((s) => s.description)).toContain(
      `Goes on in the service, superseding ${DOCS}#1: job ${jobId} · run 162`,
    );

    // A report run finds the job at work on the branch, and sees it end with its docs pull request.
    service.script('get', { job: { status: 'completed', prLink: link(2) } });
    const inputs = inputsFor(service, { sweep: 'true', docsToken: DOCS_TOKEN });
    delete inputs.prompt;
    const event = { name: 'schedule', payload: { schedule: '17 * * * *' } };
    const swept = await play({ inputs, env: gitHubEnv(gh), event });
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(docsPr.state).toBe('closed');
    expect(successor.state).toBe('open');
    expect(saidOn(docsPr)[0]?.body).toContain(`Superseded by ${anchor(link(2))}.`);
    expect(swept.stdout).toContain(
      `Closed the earlier docs pull request ${DOCS}#1: ${link(2)} supersedes it.`,
    );
    expect(gh.statuses(APP, sha(2))[0]?.description).toBe(`Completed: job ${jobId} · run 162`);
  });
  it("on a branch's thread, the branch's next run that sees the new job's docs pull request closes the one its status names", async () => {
    const { gh, docsPr, successor, step, link } = await refusingWorld(undefined, { activePolls: 1 });
    gh.history(APP, [sha(1)]);
    for (const n of [1, 2, 3]) gh.commit(APP, { sha: sha(n), message: `Push ${n}`, files: [] });
    const pushed = (n: number, inputs: Record<string, string> = {}) => {
      gh.history(APP, [sha(n), sha(n - 1), sha(1)].slice(0, n));
      const before = n === 1 ? '0'.repeat(40) : sha(n - 1);
      return play(
        step(pushEvent(sha(n), { before }), { context: 'none', ...inputs }, { GITHUB_RUN_ID: `17${n}` }),
      );
    };
    await pushed(1);
    const second = await pushed(2, { wait: 'false' });
    expect(docsPr.state).toBe('open');
    // The next push follows the new job up (it is at work), which ends with its docs pull request.
    const third = await pushed(3);
    expect(third.outputs).toMatchObject({
      mode: 'followed-up',
      jobId: second.outputs.jobId,
      prLink: link(2),
    });
    expect(warnings(third)).toEqual([]);
    expect(docsPr.state).toBe('closed');
    expect(successor.state).toBe('open');
    expect(third.stdout).toContain(
      `Closed the earlier docs pull request ${DOCS}#1: ${link(2)} supersedes it.`,
    );
  });
});
