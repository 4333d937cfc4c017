// What a thread spends, through the bundle under Node 24 against both emulators: a pull request's
// life under `followUp: at-merge` (opened, three pushes, the merge) costs exactly two quota uses,
// its pushes leave success statuses, and the merge's follow-up names the files of all three pushes.
// The other policies and skips are in run.follow-up.test.ts, in process.
import { describe, expect, it } from '@jest/globals';
import { emulators, gitHubEmulators, run, threadStep } from '../__fixtures__/e2e.js';
import { APP, changedFile, pullRequestAt, pushTo, sha, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('followUp: at-merge, through the bundle', () => {
  it("costs two uses over a pull request's life: the opening and the merge", async () => {
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const step = threadStep(service, gh);
    const atMerge = { followUp: 'at-merge' };
    const uses: string[] = [];

    const opened = await run(step(pushTo(pr, sha(1), 'opened'), atMerge, { GITHUB_RUN_ID: '11' }));
    expect(opened.outputs).toMatchObject({ mode: 'created', status: 'completed' });
    uses.push(opened.outputs.uses ?? '');
    for (const n of [2, 3, 4]) {
      const pushed = await run(step(pushTo(pr, sha(n)), atMerge, { GITHUB_RUN_ID: `1${n}` }));
      expect(pushed.code).toBe(0);
      expect(pushed.outputs.mode).toBe('skipped');
      uses.push(pushed.outputs.uses ?? '');
      expect(gh.statuses(APP, sha(n))[0]).toMatchObject({
        state: 'success',
        description: `Docs follow at the merge: job ${opened.outputs.jobId} · run 1${n}`,
      });
    }

    gh.comparison(APP, `${sha(1)}...${sha(4)}`, {
      commits: [],
      files: [2, 3, 4].map((n) => changedFile(`src/f${n}.ts`)),
    });
    pr.merged = true;
    const closed = pullRequestAt(pr.number, sha(4), 'closed');
    const merge = await run(
      step(
        {
          ...closed,
          payload: { ...closed.payload, pull_request: { ...closed.payload.pull_request, merged: true } },
        },
        atMerge,
        { GITHUB_RUN_ID: '15' },
      ),
    );
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', jobId: opened.outputs.jobId });
    uses.push(merge.outputs.uses ?? '');

    expect(uses).toEqual(['1', '0', '0', '0', '1']);
    expect(service.count('create') + service.count('message')).toBe(2);
    const told = service.requests.find((r) => r.route === 'message')?.json as { prompt: string };
    for (const n of [2, 3, 4]) expect(told.prompt).toContain(`src/f${n}.ts`);
  });
});
