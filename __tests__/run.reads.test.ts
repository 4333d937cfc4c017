// What a thread's runs read of GitHub, counted on the GitHub emulator's record of every request,
// with run() in this process against both emulators: each page of the thread's comments is read
// once a run, whichever readers need it (the kept comment's look-up, the requests queued on it);
// and a pull request's life with the thread workflow makes no more reads than it did before the
// reads added since (a docs PR's note, a branch's tip) were paid for by reading the rest once.
import { describe, expect, it } from '@jest/globals';
import { docsThread, emulators, gitHubEmulators, runHere as play } from '../__fixtures__/e2e.js';
import { APP, changedFile, commentEvent, pushTo, sha } from '../__fixtures__/github-world.js';
import type { GitHubEmulator } from '../emulators/github.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** The pages of #`number`'s comments each run asked for (a request without `page` asks page 1). */
function commentPages(gh: GitHubEmulator, from: number, number: number): number[] {
  return gh.requests
    .slice(from)
    .filter((r) => r.route === 'listComments' && r.path.startsWith(`/repos/${APP}/issues/${number}/comments`))
    .map((r) => Number(new URL(r.path, 'http://github').searchParams.get('page') ?? '1'));
}

describe("a thread run's reads", () => {
  it('reads each page of the thread’s comments once, on a thread of three pages: the kept comment’s look-up and the requests share them', async () => {
    const { gh, pr, step } = await docsThread(github, emulator);
    for (let i = 0; i < 250; i++) gh.addComment(APP, pr.number, { login: 'mona', body: `comment ${i}` });
    const opened = await play(step(pushTo(pr, sha(1), 'opened')));
    expect(opened.outputs.mode).toBe('created');
    // The kept comment is the thread's newest: on its third page, as the request after it.
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs also the README' });
    const from = gh.requests.length;
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id })));
    expect(asked.outputs).toMatchObject({ mode: 'followed-up', jobId: opened.outputs.jobId });
    expect(request.reactions).toEqual(['eyes']);
    const pages = commentPages(gh, from, pr.number);
    expect(pages.sort((a, b) => a - b)).toEqual([1, 2, 3]);
  });

  it("a pull request's life with the thread workflow — opened, a push, a /docs request, a push after its docs PR merged — makes 22 GitHub reads, 25 a week before", async () => {
    const { gh, pr, docsPr, service, step } = await docsThread(github, emulator);
    gh.commit(APP, { sha: sha(2), message: 'Add the --dry-run flag', files: [] });
    gh.comparison(APP, `${sha(1)}...${sha(2)}`, { commits: [sha(2)], files: [changedFile('src/cli.ts')] });
    const opened = await play(step(pushTo(pr, sha(1), 'opened')));
    const pushed = await play(step(pushTo(pr, sha(2))));
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs also the README' });
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id })));
    docsPr.merged = true;
    const afterMerge = await play(step(pushTo(pr, sha(3))));
    expect([opened, pushed, asked, afterMerge].map((r) => r.outputs.mode)).toEqual([
      'created',
      'followed-up',
      'followed-up',
      'created',
    ]);
    expect(service.count('create') + service.count('message')).toBe(4);
    // This flow is run.thread's first: 25 GETs at b34c515 (main a week before issue 44), 29 at
    // 2942498 (the thread's first page of comments read twice a run, a comparison and the pull
    // request's files once for `paths` and again for the context, the pull request twice), 22 once
    // each is read once a run.
    expect(gh.requests.filter((r) => r.method === 'GET')).toHaveLength(22);
  });
});
