// `draft: true`, played with run() in this process against both emulators: the docs pull request a
// thread's job opened is a draft while the code pull request is open, ready for review (then
// auto-merged, if asked) once it merges, closed with a link when it closes unmerged; the code pull
// request is never touched, and a token that may not write there is one warning.
import { describe, expect, it } from '@jest/globals';
import {
  docsThread,
  emulators,
  gitHubEmulators,
  inputsFor,
  runHere,
  serviceTimeOnly,
  warnings,
} from '../__fixtures__/e2e.js';
import { DOCS, DOCS_TOKEN, gitHubEnv, pullRequestAt, pushTo, sha } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
/** Each run with the service's waits passing at once. */
const play = (options: Parameters<typeof runHere>[0]) => runHere(options, serviceTimeOnly());
const github = gitHubEmulators();

/** Pull request `pr`'s `closed` event at `head`, merged or not, as GitHub has it then. */
function closedAt(pr: { number: number; merged?: boolean; state?: string }, head: string, merged: boolean) {
  pr.merged = merged;
  pr.state = 'closed';
  const closed = pullRequestAt(pr.number, head, 'closed');
  return {
    ...closed,
    payload: { ...closed.payload, pull_request: { ...closed.payload.pull_request, merged } },
  };
}

/** The thread's world with `draft: true` (and auto-merge, squash), its docs in acme/docs. */
async function drafted(inputs: Record<string, string> = {}) {
  const world = await docsThread(github, emulator);
  const { step } = world;
  const here = (event: Parameters<typeof step>[0], more: Record<string, string> = {}) =>
    step(event, { draft: 'true', autoMerge: 'squash', followUp: 'at-merge', ...inputs, ...more });
  return { ...world, here };
}

describe('draft: true', () => {
  it('a draft while the code is open, ready and auto-merged once it merges; the code pull request is never touched', async () => {
    const { gh, pr, docsPr, here } = await drafted();
    const opened = await play(here(pushTo(pr, sha(2), 'opened')));
    expect(opened.code).toBe(0);
    expect(warnings(opened)).toEqual([]);
    expect(docsPr.draft).toBe(true);
    // Auto-merge waits for the merge: a draft is not to be merged.
    expect(docsPr.autoMerge).toBeUndefined();
    expect(opened.stdout).toContain('Auto-merge not enabled yet');

    // A push: the docs PR stays a draft (held by at-merge, nothing written on it).
    const pushed = await play(here(pushTo(pr, sha(3))));
    expect(pushed.outputs.status).toBe('skipped');
    expect(docsPr.draft).toBe(true);

    const merged = await play(here(closedAt(pr, sha(3), true)));
    expect(merged.code).toBe(0);
    expect(warnings(merged)).toEqual([]);
    expect(merged.outputs.mode).toBe('followed-up');
    expect(docsPr.draft).toBe(false);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
    // Only the docs PR was made a draft or ready.
    const moved = gh.requests.filter((r) => r.route === 'draftPull' || r.route === 'readyPull');
    expect(moved.map((r) => r.route)).toEqual(['draftPull', 'readyPull']);
    expect(moved.every((r) => r.token === DOCS_TOKEN)).toBe(true);
    expect(pr.draft).toBeFalsy();
  });

  it('the code pull request closed unmerged: the docs PR is closed, with a link, and nothing is sent', async () => {
    const { pr, docsPr, service, here } = await drafted();
    await play(here(pushTo(pr, sha(2), 'opened')));
    expect(docsPr.draft).toBe(true);
    const closed = await play(here(closedAt(pr, sha(2), false)));
    expect(closed.code).toBe(0);
    expect(warnings(closed)).toEqual([]);
    expect(closed.outputs.status).toBe('skipped');
    expect(service.count('message')).toBe(0);
    expect(docsPr.state).toBe('closed');
    expect(docsPr.comments.at(-1)?.body).toContain(
      `acme/app#${pr.number}</a>, the pull request these docs were written for, was closed without merging`,
    );
    expect(pr.state).toBe('closed');
    expect(pr.draft).toBeFalsy();
  });

  it('merged with nothing sent (the budget spent): the merge run still marks it ready', async () => {
    const { pr, docsPr, service, here } = await drafted({ budget: '1' });
    await play(here(pushTo(pr, sha(2), 'opened')));
    expect(docsPr.draft).toBe(true);
    const merged = await play(here(closedAt(pr, sha(2), true)));
    expect(merged.outputs.status).toBe('skipped');
    expect(service.count('message')).toBe(0);
    expect(docsPr.draft).toBe(false);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
  });

  it('a docsToken that may not write there: one warning that says what was not done', async () => {
    const { gh, pr, docsPr, here } = await drafted();
    gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [] });
    const opened = await play(here(pushTo(pr, sha(2), 'opened'), { autoMerge: '' }));
    expect(opened.code).toBe(0);
    expect(docsPr.draft).toBeFalsy();
    expect(warnings(opened)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Could not make acme\/docs#\d+ a draft[\s\S]*does not follow #\d+: draft: true needs docsToken with pull-requests: write on acme\/docs\.$/,
        ),
      ]),
    );
  });

  it('without thread: a bad input, and nothing is sent anywhere', async () => {
    const { gh, pr, service } = await docsThread(github, emulator);
    const result = await play({
      inputs: inputsFor(service, { draft: 'true' }),
      env: gitHubEnv(gh),
      event: pushTo(pr, sha(2), 'opened'),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Input "draft" is true but thread is not true');
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

describe('draft: true without waiting', () => {
  it("the run that writes the job's end (a report run) makes the docs PR a draft, as the starting run asked", async () => {
    const { gh, pr, docsPr, service, here } = await drafted();
    gh.workflow('acme/app', 'docs.yml', { inputs: ['docs-agent-thread'] });
    service.script('get', { job: { status: 'active' } });
    const opened = await play(here(pushTo(pr, sha(2), 'opened'), { wait: 'false' }));
    service.unscript('get');
    expect(opened.outputs.status).toBe('active');
    expect(docsPr.draft).toBeFalsy();
    const swept = await play(here({ name: 'schedule', payload: {} }, { wait: 'false' }));
    expect(swept.code).toBe(0);
    expect(warnings(swept)).toEqual([]);
    expect(docsPr.draft).toBe(true);
    expect(docsPr.autoMerge).toBeUndefined();
  });
});
