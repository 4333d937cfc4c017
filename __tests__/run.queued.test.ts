// Queued `/docs` requests on a thread, played with run() in this process against both emulators:
// a burst while one run is busy costs two uses (the next run carries the rest in one follow-up,
// oldest first, each with its author and link), the runs whose requests were carried end skipped
// and say which run carried them, every carried request gets its 👀; a request by someone without
// write access is not carried; a note written before requests were kept carries nothing older
// than the run's own request. The choices are tested one by one in requests.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  gitHubEmulators,
  notices,
  runHere as play,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import { APP, commentEvent, pushTo, sha, world } from '../__fixtures__/github-world.js';
import type { StoredComment } from '../emulators/github.js';
import { noteLine, readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

async function requestWorld() {
  const gh = await github();
  const { pr, docsLink } = world(gh);
  const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
  const thread = threadStep(service, gh);
  const ask = (login: string, body: string) => gh.addComment(APP, pr.number, { login, body });
  const runFor = (comment: StoredComment, run: number, login = comment.login) =>
    play(
      thread(
        commentEvent(pr.number, comment.body, { id: comment.id, login }),
        {},
        { GITHUB_RUN_ID: String(run) },
      ),
    );
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  const link = (c: StoredComment) => `${gh.serverUrl}/${APP}/pull/${pr.number}#issuecomment-${c.id}`;
  const prompts = () =>
    service.requests
      .filter((r) => r.route === 'create' || r.route === 'message')
      .map((r) => (r.json as { prompt: string }).prompt);
  return { gh, pr, service, ask, runFor, kept, link, prompts };
}

describe('queued /docs requests', () => {
  it('a burst of five costs two uses; the carried runs end skipped and say which run carried them; each gets its 👀', async () => {
    const { gh, service, ask, runFor, kept, link, prompts } = await requestWorld();
    gh.collaborator(APP, 'mona', 'write');
    const first = ask('octocat', '/docs document the --dry-run flag');
    const busy = await runFor(first, 201);
    expect(busy.outputs).toMatchObject({ mode: 'created', uses: '1' });
    // Only the run's own request: the standing prompt and the request, as it always was.
    expect(prompts()).toHaveLength(1);
    expect(prompts()[0]).toMatch(
      /^Document the new rate limits\n\ndocument the --dry-run flag\n\n## Context/,
    );

    // Four more while the first run was busy.
    const queued = [
      ask('mona', '/docs the FAQ entry on proxies'),
      ask('octocat', '/docs\nthe changelog line'),
      ask('mona', '/DOCS the README table'),
      ask('octocat', '/docs the upgrade guide'),
    ];
    const next = await runFor(queued[0] as StoredComment, 202);
    expect(next.code).toBe(0);
    expect(warnings(next)).toEqual([]);
    expect(next.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(1);
    const followUp = prompts()[1] ?? '';
    // The standing prompt first, then the requests, then the context.
    expect(followUp).toMatch(
      /^Document the new rate limits\n\n4 requests were made on this thread, oldest first:\n\n/,
    );
    expect(followUp.indexOf('Request 4 of 4')).toBeLessThan(followUp.indexOf('## Context'));
    const texts = ['the FAQ entry on proxies', 'the changelog line', 'the README table', 'the upgrade guide'];
    const at = texts.map((t) => followUp.indexOf(t));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    queued.forEach((c, i) => {
      expect(followUp).toContain(`Request ${i + 1} of 4, by ${c.login} (${link(c)}):\n${texts[i]}`);
    });
    expect(followUp).not.toContain('--dry-run flag');
    for (const c of [first, ...queued]) expect(c.reactions).toEqual(['eyes']);
    // The kept comment names the four requests the run sent; the note records them delivered.
    expect(kept()).toContain('📨 This run sent 4 requests queued on the thread');
    for (const c of queued) expect(kept()).toContain(`<a href="${link(c)}">request</a>`);
    expect(readNote(kept())?.requests?.settled[0]).toEqual({ run: 202, ids: queued.map((c) => c.id) });

    for (const [i, c] of queued.slice(1).entries()) {
      const carried = await runFor(c, 203 + i);
      expect(carried.code).toBe(0);
      expect(carried.outputs).toMatchObject({ status: 'skipped', mode: 'skipped', uses: '0' });
      expect(notices(carried)).toEqual([
        "Skipped: this request was already sent to the thread's job by run 202, with the other requests queued on the thread.",
      ]);
      expect(kept()).toContain(
        `This request was already delivered: <a href="${gh.serverUrl}/${APP}/actions/runs/202">run 202</a> sent it`,
      );
    }
    // Two uses in all, and the thread's note still knows its job and what it spent.
    expect(service.count('create') + service.count('message')).toBe(2);
    expect(readNote(kept())).toMatchObject({ uses: 2, job: busy.outputs.jobId });
  });

  it('leaves out a request by someone without write access, and a bot allowedActors does not name', async () => {
    const { gh, ask, runFor, prompts } = await requestWorld();
    gh.collaborator(APP, 'stranger', 'read');
    const first = ask('octocat', '/docs the flag');
    await runFor(first, 301);
    const outsider = ask('stranger', '/docs rewrite everything');
    const bot = ask('renovate[bot]', '/docs bump');
    const member = ask('octocat', '/docs the FAQ');
    const own = ask('octocat', '/docs the README');
    const run = await runFor(own, 302);
    expect(run.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    const sent = prompts()[1] ?? '';
    expect(sent).toContain('Request 1 of 2, by octocat');
    expect(sent).toContain('the FAQ');
    expect(sent).toContain('the README');
    expect(sent).not.toContain('rewrite everything');
    expect(sent).not.toContain('bump');
    expect(outsider.reactions).toEqual([]);
    expect(bot.reactions).toEqual([]);
    expect(member.reactions).toEqual(['eyes']);
    // The outsider's role asked once; the bot's never (octocat's: once a run, by the gate).
    const looked = gh.requests.filter((r) => r.route === 'getCollaboratorPermission').map((r) => r.path);
    expect(looked.filter((p) => p.includes('stranger'))).toHaveLength(1);
    expect(looked.filter((p) => p.includes('renovate'))).toEqual([]);
    expect(looked.filter((p) => p.includes('octocat'))).toHaveLength(2);
  });

  it('a note written before requests were kept carries nothing older than the run’s own request', async () => {
    const { ask, runFor, prompts, kept, pr, gh, service } = await requestWorld();
    const old = ask('octocat', '/docs an old request');
    // A run of a step without a trigger phrase writes the thread's note, reading no request.
    await play(
      threadStep(service, gh)(pushTo(pr, sha(1), 'opened'), { trigger: '' }, { GITHUB_RUN_ID: '401' }),
    );
    // The note as an earlier version wrote it: no record of requests.
    const comment = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'));
    const written = readNote(kept());
    if (!comment || !written) throw new Error('no note');
    const { requests, ...older } = written;
    expect(requests).toEqual({ floor: 0, settled: [] });
    comment.body = comment.body.replace(/<!-- agent-job-action:note \S+ -->/, noteLine(older));
    expect(readNote(kept())?.requests).toBeUndefined();
    const own = ask('octocat', '/docs the new request');
    const run = await runFor(own, 402);
    expect(run.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts()[1]).toMatch(/^Document the new rate limits\n\nthe new request\n\n## Context/);
    expect(prompts()[1]).not.toContain('an old request');
    expect(old.reactions).toEqual([]);
    expect(readNote(kept())?.requests).toEqual({
      floor: expect.any(Number),
      settled: [{ run: 402, ids: [own.id] }],
    });
    expect(readNote(kept())?.requests?.floor).toBeGreaterThanOrEqual(old.id);
  });

  it('a request whose run GitHub cancelled while pending is carried by the next request, on a thread of this version', async () => {
    const { pr, gh, service, ask, runFor, prompts } = await requestWorld();
    await play(threadStep(service, gh)(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '451' }));
    // Two requests while a run was busy: GitHub cancelled the first one's pending run.
    const cancelled = ask('octocat', '/docs the timeout flag');
    const newest = ask('octocat', '/docs the retry flag');
    const run = await runFor(newest, 453);
    expect(run.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).toContain('the timeout flag');
    expect(prompts().at(-1)).toContain('the retry flag');
    expect(cancelled.reactions).toEqual(['eyes']);
  });

  it('carries at most 30 queued requests in one send; the rest wait for the next request, and none is lost', async () => {
    const { pr, gh, service, ask, runFor, prompts } = await requestWorld();
    await play(threadStep(service, gh)(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '481' }));
    const queued = Array.from({ length: 34 }, (_, i) => ask('octocat', `/docs item ${i + 1}.`));
    const own = ask('octocat', '/docs the last item.');
    const first = await runFor(own, 482);
    expect(first.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(warnings(first)).toEqual([
      expect.stringMatching(
        /^Not every request queued on the thread goes in this send \(at most 30, 30 look-ups/,
      ),
    ]);
    expect(prompts().at(-1)).toContain('item 30.');
    expect(prompts().at(-1)).not.toContain('item 31.');
    const next = ask('octocat', '/docs one more.');
    await runFor(next, 483);
    for (const n of [31, 32, 33, 34]) expect(prompts().at(-1)).toContain(`item ${n}.`);
    expect(queued.every((c) => c.reactions.includes('eyes'))).toBe(true);
  });

  it('a request whose author GitHub could not tell about waits, undelivered, for the next request', async () => {
    const { pr, gh, service, ask, prompts } = await requestWorld();
    gh.collaborator(APP, 'mona', 'write');
    await play(threadStep(service, gh)(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '491' }));
    const monas = ask('mona', '/docs the cache flag');
    const runAs = (comment: StoredComment, run: number) =>
      play(
        threadStep(service, gh)(
          commentEvent(pr.number, comment.body, { id: comment.id }),
          // octocat is named: only mona's access is asked of GitHub.
          { allowedActors: 'octocat' },
          { GITHUB_RUN_ID: String(run) },
        ),
      );
    gh.fail('getCollaboratorPermission', { status: 502, message: 'Bad Gateway' });
    const first = await runAs(ask('octocat', '/docs the retry flag'), 492);
    expect(first.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).not.toContain('the cache flag');
    expect(warnings(first)).toEqual([expect.stringMatching(/^Could not read the role of mona on acme\/app/)]);
    const next = await runAs(ask('octocat', '/docs the log flag'), 493);
    expect(next.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).toContain('the cache flag');
    expect(monas.reactions).toEqual(['eyes']);
  });

  it('on a thread of more than 1,000 comments, a request on a page between the newest and what the ledger settled is carried: the pages from the floor on are read too, each once', async () => {
    const { gh, pr, ask, runFor, prompts } = await requestWorld();
    await runFor(ask('octocat', '/docs the flag'), 501);
    const filler = (n: number) => {
      for (let i = 0; i < n; i++) ask('mona', `comment ${i}`);
    };
    filler(150);
    const far = ask('octocat', '/docs on page 2');
    filler(1000);
    const near = ask('octocat', '/docs near the end');
    filler(5);
    const own = ask('octocat', '/docs the last one');
    expect(pr.comments.length).toBeGreaterThan(1100);
    const listed = gh.count('listComments');
    const run = await runFor(own, 502);
    expect(run.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    // Twelve pages: the newest back to page 4 (page 1 among the ten, shared with the kept comment's
    // look-up), then pages 2 and 3 on from the floor's page; and the docs PR's first page.
    expect(gh.count('listComments') - listed).toBe(13);
    expect(prompts()[1]).toContain('Request 1 of 3, by octocat');
    expect(prompts()[1]).toContain('on page 2');
    expect(prompts()[1]).toContain('near the end');
    expect([far.reactions, near.reactions]).toEqual([['eyes'], ['eyes']]);
    // Every comment was read: the ledger's floor rises over all three.
    const floor = readNote(pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '')
      ?.requests?.floor;
    expect(floor).toBeGreaterThanOrEqual(own.id);
    expect(warnings(run)).toEqual([]);
  });

  it('on a thread of 3,000 comments, a run reads a bounded stretch on from the floor and says so; the next run reads on from there and carries the request it reaches', async () => {
    const { gh, ask, runFor, prompts } = await requestWorld();
    await runFor(ask('octocat', '/docs the flag'), 511);
    const filler = (n: number) => {
      for (let i = 0; i < n; i++) ask('mona', `comment ${i}`);
    };
    filler(150);
    const early = ask('octocat', '/docs on page 2');
    filler(1300);
    const middle = ask('octocat', '/docs in the middle');
    filler(1500);
    const first = ask('octocat', '/docs the newest');
    const listed = gh.count('listComments');
    const one = await runFor(first, 512);
    expect(one.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    // At most ten pages from the newest back and ten from the floor on, and the docs PR's first.
    expect(gh.count('listComments') - listed).toBeLessThanOrEqual(21);
    expect(prompts()[1]).toContain('on page 2');
    expect(prompts()[1]).not.toContain('in the middle');
    expect([early.reactions, middle.reactions]).toEqual([['eyes'], []]);
    expect(warnings(one)).toContainEqual(
      expect.stringMatching(
        /^The thread has more comments than one run reads \(at most 2,000\): this run read those from the last one settled up to comment \d+, and the newest; requests among those in between wait for the next run, which reads on from there\.$/,
      ),
    );
    const second = await runFor(ask('octocat', '/docs once more'), 513);
    expect(second.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts()[2]).toContain('in the middle');
    expect(middle.reactions).toEqual(['eyes']);
  });

  it('a review comment request is its own run’s: it carries the issue comments queued, and is answered where it was made', async () => {
    const { gh, pr, ask, runFor, service, prompts } = await requestWorld();
    await runFor(ask('octocat', '/docs the flag'), 601);
    const queued = ask('octocat', '/docs the FAQ');
    const review = gh.addReviewComment(APP, pr.number, { login: 'octocat', body: '/docs this function' });
    const run = await play(
      threadStep(service, gh)(
        {
          name: 'pull_request_review_comment',
          payload: {
            action: 'created',
            comment: {
              id: review.id,
              body: review.body,
              user: { login: 'octocat', type: 'User' },
              pull_request_review_id: 1,
              html_url: `${gh.serverUrl}/${APP}/pull/${pr.number}#discussion_r${review.id}`,
            },
            pull_request: {
              number: pr.number,
              head: { repo: { full_name: APP } },
              base: { repo: { full_name: APP } },
            },
            repository: { name: 'app', owner: { login: 'acme' } },
            sender: { login: 'octocat', type: 'User' },
          },
        },
        {},
        { GITHUB_RUN_ID: '602' },
      ),
    );
    expect(run.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    const sent = prompts()[1] ?? '';
    expect(sent).toContain('Request 1 of 2, by octocat');
    expect(sent.indexOf('the FAQ')).toBeLessThan(sent.indexOf('this function'));
    expect(review.reactions).toEqual(['eyes']);
    expect(queued.reactions).toEqual(['eyes']);
    // The issue comment is delivered: its own run is carried.
    const carried = await runFor(queued, 603);
    expect(carried.outputs).toMatchObject({ status: 'skipped', uses: '0' });
  });

  it('a re-run that only waits for its job carries nothing: no 👀, no delivery for a request it did not send', async () => {
    const { gh, pr, service, ask, kept } = await requestWorld();
    const first = ask('octocat', '/docs the flag');
    const step = (attempt: string) =>
      play(
        threadStep(service, gh)(
          commentEvent(pr.number, first.body, { id: first.id }),
          {},
          { GITHUB_RUN_ID: '801', GITHUB_RUN_ATTEMPT: attempt },
        ),
      );
    await step('1');
    const delivered = readNote(kept())?.delivered;
    const later = ask('octocat', '/docs asked after it');
    const rerun = await step('2');
    expect(rerun.outputs).toMatchObject({ mode: 'resumed', uses: '0' });
    expect(later.reactions).toEqual([]);
    expect(readNote(kept())?.delivered).toEqual(delivered);
    expect(kept()).not.toContain('📨');
  });
});
