// What a thread spends, played with run() in this process against both emulators: the `uses`
// output on each path (a create, a follow-up, a refused follow-up and its replacement, a skip),
// the thread's total in the kept comment and the summary, counted once a run; and a dry run,
// which reads and decides as usual and sends nothing to the service and writes nothing on GitHub.
import { describe, expect, it } from '@jest/globals';
import { emulators, errors, gitHubEmulators, KEY, runHere as play, threadStep } from '../__fixtures__/e2e.js';
import { pushTo, APP, commentEvent, sha, world } from '../__fixtures__/github-world.js';
import type { GitHubEmulator } from '../emulators/github.js';
import type { EmulatorOptions } from '../emulators/server.js';
import { nextLedger as nextNote } from '../src/core/ledger.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** A pull request of acme/app whose docs live in acme/docs; one push with a changed file. */
async function threadWorld(options: EmulatorOptions = {}) {
  const gh = await github();
  const { pr, docsLink } = world(gh);
  const service = await emulator({ final: { status: 'completed', prLink: docsLink }, ...options });
  gh.commit(APP, { sha: sha(2), message: 'Add the --dry-run flag', files: [] });
  gh.comparison(APP, `${sha(1)}...${sha(2)}`, {
    commits: [sha(2)],
    files: [{ filename: 'src/cli.ts', status: 'modified', additions: 4, deletions: 0, patch: '@@ +1 @@' }],
  });
  const step = threadStep(service, gh);
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  return { gh, pr, service, step, kept };
}

/** GitHub requests from `from` on that are not reads: anything but a GET and the viewer query. */
function writesSince(gh: GitHubEmulator, from: number) {
  return gh.requests
    .slice(from)
    .filter((r) => r.method !== 'GET' && r.route !== 'graphql')
    .map((r) => `${r.method} ${r.path}`);
}

describe('uses', () => {
  it('is 1 after a create and after a follow-up; the thread counts 2, once a run, in the comment and the summary', async () => {
    const { service, step, kept, pr } = await threadWorld();
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '101' }));
    expect(opened.outputs).toMatchObject({ mode: 'created', uses: '1' });
    expect(kept()).toContain('Quota uses on this thread: 1');

    const pushed = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '102' }));
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(1);
    // The note was written twice by each run (its first post, its last word): each counted once.
    expect(readNote(kept())?.uses).toBe(2);
    expect(kept()).toContain('Quota uses on this thread: 2');
    expect(pushed.summary).toContain('Quota uses on this thread: 2');

    // A re-run that finds its job and only waits spends nothing, and rewrites the note.
    const rerun = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '102', GITHUB_RUN_ATTEMPT: '2' }));
    expect(rerun.outputs).toMatchObject({ mode: 'resumed', uses: '0' });
    expect(readNote(kept())?.uses).toBe(2);
    expect(kept()).toContain('Quota uses on this thread: 2');
  });

  it('is 1 when a refused follow-up gives way to a create the service accepted', async () => {
    const { service, step, pr } = await threadWorld({ finishedJobMessages: { status: 400 } });
    await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '101' }));
    const pushed = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '102' }));
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toMatchObject({ mode: 'created', uses: '1' });
    expect(service.count('create')).toBe(2);
  });

  it('is 0 when a refused follow-up is replaced by a create that fails', async () => {
    const { service, step, pr, kept } = await threadWorld({ finishedJobMessages: { status: 400 } });
    await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '101' }));
    service.script('create', { status: 400, json: { error: 'prompt too long' } });
    const pushed = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '102' }));
    expect(pushed.code).toBe(1);
    expect(pushed.outputs).toMatchObject({ status: 'not-started', uses: '0' });
    expect(readNote(kept())?.uses).toBe(1);
  });

  it('is 0 on a skip', async () => {
    const { service, step, pr } = await threadWorld();
    const skipped = await play(step(commentEvent(pr.number, 'LGTM')));
    expect(skipped.outputs).toMatchObject({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(service.requests).toEqual([]);
  });

  it("counts a note's own run once however often it is written, and each attempt apart", () => {
    const before = {
      job: 'job-1',
      run: 41,
      attempt: 1,
      runs: [{ run: 41, attempt: 1, job: 'job-1', uses: 1 }],
      uses: 1,
    };
    const once = nextNote(before, { job: 'job-1', run: 42, attempt: 1, uses: 1 });
    expect(once.uses).toBe(2);
    expect(nextNote(once, { job: 'job-1', run: 42, attempt: 1, uses: 1 }).uses).toBe(2);
    expect(nextNote(once, { job: 'job-2', run: 42, attempt: 2, uses: 1 }).uses).toBe(3);
    // An older run's re-run adds its use, though the thread's job and head stay the newer run's.
    expect(nextNote(once, { job: 'job-3', run: 40, attempt: 2, uses: 1 })).toMatchObject({
      job: 'job-1',
      uses: 3,
    });
    expect(nextNote(undefined, { job: 'job-1', run: 42, attempt: 1 }).uses).toBeUndefined();
  });
});

describe('a dry run', () => {
  it("reads the thread's note and job, sends nothing, writes nothing on GitHub, and shows the prompt", async () => {
    const { gh, service, step, pr, kept } = await threadWorld();
    const opened = await play(
      step(pushTo(pr, sha(1), 'opened'), { wait: 'false' }, { GITHUB_RUN_ID: '101' }),
    );
    const jobId = opened.outputs.jobId ?? '';
    const comment = kept();
    const statuses = gh.statuses(APP, sha(2)).length;
    const served = service.requests.length;
    const seen = gh.requests.length;

    const dry = await play(
      step(
        pushTo(pr, sha(2)),
        { dryRun: 'true', prompt: `Document <b>it</b> with ${KEY}` },
        { GITHUB_RUN_ID: '102' },
      ),
    );
    expect(dry.code).toBe(0);
    expect(dry.outputs).toEqual({ mode: 'followed-up', status: 'dry-run', uses: '0' });
    // The job was read; no create, no message.
    expect(service.requests.slice(served).map((r) => r.route)).toEqual(['get']);
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
    // The note was read (the comments listed); no POST, PATCH, PUT, DELETE or mutation.
    expect(gh.requests.slice(seen).some((r) => r.route === 'listComments')).toBe(true);
    expect(writesSince(gh, seen)).toEqual([]);
    expect(kept()).toBe(comment);
    expect(gh.statuses(APP, sha(2))).toHaveLength(statuses);
    // The decision and the exact prompt (context included), inert and without the key.
    expect(dry.summary).toContain('dry run');
    expect(dry.summary).toContain(jobId);
    expect(dry.summary).toContain('Document &lt;b&gt;it&lt;/b&gt; with ***');
    expect(dry.summary).toContain('src/cli.ts');
    expect(dry.summary).not.toContain(KEY);
    expect(dry.summary).not.toContain('<b>it');
  });

  it('of a /docs request neither reacts nor answers', async () => {
    const { gh, service, step, pr } = await threadWorld();
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs also the README' });
    const seen = gh.requests.length;
    const dry = await play(
      step(commentEvent(pr.number, request.body, { id: request.id }), { dryRun: 'true' }),
    );
    expect(dry.code).toBe(0);
    expect(dry.outputs).toEqual({ mode: 'created', status: 'dry-run', uses: '0' });
    expect(service.requests).toEqual([]);
    expect(request.reactions).toEqual([]);
    expect(writesSince(gh, seen)).toEqual([]);
    expect(dry.summary).toContain('also the README');
  });

  it('that paths would skip leaves no status, and says it would have been skipped', async () => {
    const { gh, service, step, pr } = await threadWorld();
    await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '101' }));
    const seen = gh.requests.length;
    const dry = await play(
      step(pushTo(pr, sha(2)), { dryRun: 'true', paths: 'docs/**' }, { GITHUB_RUN_ID: '102' }),
    );
    expect(dry.code).toBe(0);
    expect(dry.outputs).toEqual({ mode: 'skipped', status: 'dry-run', uses: '0' });
    expect(service.count('message')).toBe(0);
    expect(writesSince(gh, seen)).toEqual([]);
    expect(dry.summary).toContain('none under paths');
  });

  it('whose thread GitHub cannot give fails with nothing written, its status still dry-run', async () => {
    const { gh, service, step, pr } = await threadWorld();
    const down = { status: 502, message: 'Bad Gateway' };
    gh.fail('listComments', down, down, down, down);
    const seen = gh.requests.length;
    const dry = await play(step(pushTo(pr, sha(2)), { dryRun: 'true' }));
    expect(dry.code).toBe(1);
    expect(dry.outputs).toMatchObject({ status: 'dry-run', uses: '0' });
    expect(service.requests).toEqual([]);
    expect(writesSince(gh, seen)).toEqual([]);
  });

  it('with a bad input still fails as a bad input, before any request', async () => {
    const { gh, service, step, pr } = await threadWorld();
    const seen = gh.requests.length;
    const bad: Record<string, string>[] = [{ dryRun: 'maybe' }, { dryRun: 'true', timeout: 'soon' }];
    for (const inputs of bad) {
      const result = await play(step(pushTo(pr, sha(2)), inputs));
      expect(result.code).toBe(1);
      expect(errors(result)).toEqual([expect.stringMatching(/^Input "(dryRun|timeout)"/)]);
      expect(result.outputs).toEqual({});
    }
    expect(service.requests).toEqual([]);
    expect(gh.requests.slice(seen)).toEqual([]);
  });
});
