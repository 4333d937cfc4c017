// `/docs` on a thread's docs pull request, played with run() in this process against both
// emulators: a writer's request there reaches the job that opened the docs PR through the thread's
// lane (the run on the docs PR, or the docs repository's forwarded dispatch, hands it on; the
// lane's run reads it where it was asked, judges its author there, and sends it in one follow-up,
// counted on the thread's budget), its 👀 and an answer on the docs PR; an outsider's never goes,
// and a docs service's pull request that no thread's job opened starts nothing.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import {
  docsThread,
  emulators,
  gitHubEmulators,
  notices,
  runHere as play,
  serviceTimeOnly,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import type { RunDeps } from '../src/main.js';
import { APP, commentEvent, DOCS, pushTo, sha } from '../__fixtures__/github-world.js';
import { readNote } from '../src/github/note.js';
import type { Emulator } from '../emulators/server.js';
import type { GitHubEmulator } from '../emulators/github.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const T0 = 1_700_000_000_000;
const at = (ms = 0): RunDeps => ({ ...serviceTimeOnly(), clock: new VirtualClock(T0 + ms) });

/** The recipe's workflow, as the thread's lane is dispatched: both inputs declared. */
const INPUTS = ['docs-agent-thread', 'docs-agent-docs'];

/** The dispatch of thread `number`'s lane for what was asked on the docs PR `link`. */
const laneEvent = (number: number, link: string) => ({
  name: 'workflow_dispatch',
  payload: { inputs: { 'docs-agent-thread': String(number), 'docs-agent-docs': link } },
});

/** The messages the service was sent, as their prompts. */
const messages = (service: Emulator) =>
  service.requests.filter((r) => r.route === 'message').map((r) => JSON.stringify(r.json ?? ''));

/** The thread's step where the docs live in acme/app: githubToken alone, no docsToken. */
function monorepoStep(service: Emulator, gh: GitHubEmulator) {
  const step = threadStep(service, gh);
  return (
    event: Parameters<typeof step>[0],
    inputs: Record<string, string> = {},
    env: Record<string, string> = {},
  ) => step(event, { docsToken: '', ...inputs }, env);
}

/** Docs in acme/app itself: the thread's job opened its docs PR there, which names the thread once reported. */
async function monorepo(
  inputs: Record<string, string> = {},
  prepare: (gh: GitHubEmulator) => void = () => {},
) {
  const { gh, pr } = await docsThread(github, emulator);
  prepare(gh);
  const docsPr = gh.thread(APP, { opener: 'octocat', headSha: sha(6), mergeCommitSha: sha(9) });
  const docsLink = `${gh.serverUrl}/${APP}/pull/${docsPr.number}`;
  const service = await emulator({
    final: { status: 'completed', prLink: docsLink },
    docsRepoUrl: `${gh.serverUrl}/${APP}`,
  });
  gh.workflow(APP, 'docs.yml', { inputs: INPUTS });
  const here = monorepoStep(service, gh);
  const opened = await play(here(pushTo(pr, sha(2), 'opened'), inputs), at());
  expect(opened.outputs.mode).toBe('created');
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  return { gh, pr, docsPr, docsLink, service, here, opened, kept };
}

/** `/docs <text>` by `login` on the docs PR, and the run its comment event starts there. */
async function askOnDocs(
  world: Awaited<ReturnType<typeof monorepo>>,
  text: string,
  login = 'octocat',
  inputs: Record<string, string> = {},
) {
  const { gh, docsPr, here } = world;
  const comment = gh.addComment(APP, docsPr.number, { login, body: `/docs ${text}` });
  const run = await play(
    here(commentEvent(docsPr.number, comment.body, { id: comment.id, login }), inputs),
    at(),
  );
  return { comment, run };
}

describe('a monorepo: /docs on the docs PR', () => {
  it("a writer's request is handed to the thread's lane, whose run sends it to the job that opened the docs PR, with its 👀 and an answer there", async () => {
    const world = await monorepo();
    const { gh, pr, docsPr, docsLink, service, here, kept } = world;
    const { comment, run } = await askOnDocs(world, 'mention the new flag');
    expect(run.code).toBe(0);
    expect(warnings(run)).toEqual([]);
    expect(run.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(notices(run)).toEqual([expect.stringContaining(`Handed to #${pr.number}'s thread`)]);
    expect(service.count('message')).toBe(0);
    expect(gh.dispatches(APP)).toEqual([
      {
        workflowId: 'docs.yml',
        ref: 'refs/heads/main',
        inputs: { 'docs-agent-thread': String(pr.number), 'docs-agent-docs': docsLink },
      },
    ]);

    const lane = await play(here(laneEvent(pr.number, docsLink), {}, { GITHUB_RUN_ID: '301' }), at(60_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(lane.outputs).toMatchObject({ uses: '1' });
    expect(service.count('create')).toBe(1);
    expect(messages(service)).toEqual([expect.stringContaining('mention the new flag')]);
    expect(messages(service)[0]).toContain(`by octocat`);
    expect(comment.reactions).toEqual(['eyes']);
    const answer = docsPr.comments.at(-1)?.body ?? '';
    expect(answer).toContain('This request was sent to agent job');
    expect(answer).toContain(`#${pr.number}'s comment`);
    expect(readNote(kept())?.docs).toEqual({
      pr: `${APP}#${docsPr.number}`,
      requests: expect.objectContaining({ settled: [expect.objectContaining({ ids: [comment.id] })] }),
    });
    expect(readNote(kept())?.uses).toBe(2);

    // The same hand-off again (a re-run, or GitHub's second delivery): nothing is sent twice.
    const again = await play(here(laneEvent(pr.number, docsLink)), at(120_000));
    expect(again.code).toBe(0);
    expect(service.count('message')).toBe(1);
    expect(comment.reactions).toEqual(['eyes']);
  });

  it('a burst of requests there goes in one follow-up: one use, each with its 👀', async () => {
    const world = await monorepo();
    const { gh, pr, docsLink, service, here } = world;
    gh.collaborator(APP, 'mona', 'write');
    const asked = [];
    for (const [i, text] of ['the FAQ', 'the changelog', 'the CLI page'].entries())
      asked.push((await askOnDocs(world, text, i === 1 ? 'mona' : 'octocat')).comment);
    expect(gh.dispatches(APP)).toHaveLength(3);
    // GitHub's queue runs the three lane runs one after another.
    const lanes = [];
    for (const i of [1, 2, 3]) lanes.push(await play(here(laneEvent(pr.number, docsLink)), at(i * 60_000)));
    expect(lanes.map((l) => l.outputs.uses)).toEqual(['1', '0', '0']);
    expect(service.count('message')).toBe(1);
    const [prompt = ''] = messages(service);
    for (const text of ['the FAQ', 'the changelog', 'the CLI page']) expect(prompt).toContain(text);
    expect(asked.map((c) => c.reactions)).toEqual([['eyes'], ['eyes'], ['eyes']]);
  });

  it("an outsider's request there is refused where it was asked: no hand-off, nothing sent", async () => {
    const world = await monorepo();
    const { gh, service } = world;
    gh.collaborator(APP, 'stranger', 'read');
    const { run } = await askOnDocs(world, 'rewrite everything', 'stranger');
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('skipped');
    expect(gh.dispatches(APP)).toEqual([]);
    expect(service.count('message')).toBe(0);
  });

  it("the lane judges each request there on its own: an outsider's among a writer's is not sent", async () => {
    const world = await monorepo();
    const { gh, pr, docsPr, docsLink, service, here } = world;
    gh.collaborator(APP, 'stranger', 'read');
    const theirs = gh.addComment(APP, docsPr.number, { login: 'stranger', body: '/docs leak the secrets' });
    const { comment } = await askOnDocs(world, 'the FAQ');
    const lane = await play(here(laneEvent(pr.number, docsLink)), at(60_000));
    expect(lane.outputs.uses).toBe('1');
    const [prompt = ''] = messages(service);
    expect(prompt).toContain('the FAQ');
    expect(prompt).not.toContain('leak the secrets');
    expect(comment.reactions).toEqual(['eyes']);
    expect(theirs.reactions).toEqual([]);
  });

  it("counted on the thread's budget: past it, nothing is sent", async () => {
    const world = await monorepo({ budget: '1' });
    const { pr, docsLink, service, here } = world;
    await askOnDocs(world, 'the FAQ', 'octocat', { budget: '1' });
    const lane = await play(here(laneEvent(pr.number, docsLink), { budget: '1' }), at(60_000));
    expect(lane.code).toBe(0);
    expect(lane.outputs.uses).toBe('0');
    expect(service.count('message')).toBe(0);
  });

  it('asked while the job works: the record owes it, the docs PR is told it waits, and the lane sends it once the end is written', async () => {
    const { gh, pr } = await docsThread(github, emulator);
    const docsPr = gh.thread(APP, { opener: 'octocat', headSha: sha(6) });
    const docsLink = `${gh.serverUrl}/${APP}/pull/${docsPr.number}`;
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    gh.workflow(APP, 'docs.yml', { inputs: INPUTS });
    const here = monorepoStep(service, gh);
    const opened = await play(here(pushTo(pr, sha(2), 'opened')), at());
    expect(opened.outputs.mode).toBe('created');
    // A follow-up left at work without waiting.
    service.script('get', { job: { status: 'active' } });
    const pushed = await play(here(pushTo(pr, sha(3)), { wait: 'false' }), at(60_000));
    expect(pushed.outputs.mode).toBe('followed-up');
    const world = { gh, pr, docsPr, docsLink, service, here, opened, kept: () => '' };
    const { comment } = await askOnDocs(world, 'the FAQ', 'octocat', { wait: 'false' });
    service.script('get', { job: { status: 'active' } });
    const atWork = await play(here(laneEvent(pr.number, docsLink), { wait: 'false' }), at(120_000));
    service.unscript('get');
    expect(atWork.code).toBe(0);
    expect(service.count('message')).toBe(1);
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    expect(readNote(kept)?.waiting?.docs).toBe(docsLink);
    expect(docsPr.comments.at(-1)?.body).toContain('Queued: the agent is still at work');
    expect(comment.reactions).toEqual([]);
    // Another hand-off while the job works (another request there) says nothing more.
    const said = docsPr.comments.length;
    service.script('get', { job: { status: 'active' } });
    await play(here(laneEvent(pr.number, docsLink), { wait: 'false' }), at(150_000));
    service.unscript('get');
    expect(docsPr.comments.length).toBe(said);

    // The job ends; a report run hands the thread off; its lane writes the end and sends.
    const dispatched = gh.dispatches(APP).length;
    const swept = await play(here({ name: 'schedule', payload: {} }, { wait: 'false' }), at(600_000));
    expect(swept.code).toBe(0);
    expect(gh.dispatches(APP).slice(dispatched)).toEqual([
      expect.objectContaining({ inputs: { 'docs-agent-thread': String(pr.number) } }),
    ]);
    const lane = await play(
      here(
        { name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-thread': String(pr.number) } } },
        {
          wait: 'false',
        },
      ),
      at(660_000),
    );
    expect(lane.code).toBe(0);
    expect(service.count('message')).toBe(2);
    expect(messages(service)[1]).toContain('the FAQ');
    expect(comment.reactions).toEqual(['eyes']);
  });

  it("an earlier job's docs PR (its note names another job): what is asked there is not sent to the thread's job now", async () => {
    const world = await monorepo();
    const { pr, docsPr, docsLink, service, here } = world;
    const [note] = docsPr.comments;
    if (note) note.body = note.body.replace(/ job \S+ -->/, ' job job_earlier0000 -->');
    await askOnDocs(world, 'the FAQ');
    const lane = await play(here(laneEvent(pr.number, docsLink), {}, { GITHUB_RUN_ID: '301' }), at(60_000));
    expect(lane.code).toBe(0);
    expect(service.count('message')).toBe(0);
    expect(warnings(lane)).toEqual([expect.stringContaining("not the thread's job now")]);
  });

  it('with a docsToken of its own in the monorepo: the note is that identity\u2019s, and a request there is still handed on', async () => {
    const token = 'ghs_MonorepoDocsToken000000000000000000001';
    const world = await monorepo({ docsToken: token }, (gh) =>
      gh.grant(token, { login: 'docs-writer[bot]', type: 'Bot', read: [APP], write: [APP] }),
    );
    const { pr, docsPr, docsLink, service, here } = world;
    expect(docsPr.comments[0]?.login).toBe('docs-writer[bot]');
    const { run } = await askOnDocs(world, 'the FAQ', 'octocat', { docsToken: token });
    expect(notices(run)).toEqual([expect.stringContaining(`Handed to #${pr.number}'s thread`)]);
    const lane = await play(
      here(laneEvent(pr.number, docsLink), { docsToken: token }, { GITHUB_RUN_ID: '301' }),
      at(60_000),
    );
    expect(lane.code).toBe(0);
    expect(messages(service)).toEqual([expect.stringContaining('the FAQ')]);
  });

  it("asked while the job works, then the thread's own next run sends first: it carries what its record owes there", async () => {
    const { gh, pr } = await docsThread(github, emulator);
    const docsPr = gh.thread(APP, { opener: 'octocat', headSha: sha(6) });
    const docsLink = `${gh.serverUrl}/${APP}/pull/${docsPr.number}`;
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    gh.workflow(APP, 'docs.yml', { inputs: INPUTS });
    const here = monorepoStep(service, gh);
    await play(here(pushTo(pr, sha(2), 'opened')), at());
    service.script('get', { job: { status: 'active' } });
    await play(here(pushTo(pr, sha(3)), { wait: 'false' }, { GITHUB_RUN_ID: '302' }), at(60_000));
    const world = { gh, pr, docsPr, docsLink, service, here, opened: undefined as never, kept: () => '' };
    const { comment } = await askOnDocs(world, 'the FAQ', 'octocat', { wait: 'false' });
    service.script('get', { job: { status: 'active' } });
    await play(
      here(laneEvent(pr.number, docsLink), { wait: 'false' }, { GITHUB_RUN_ID: '303' }),
      at(120_000),
    );
    service.unscript('get');
    // The job ends; a push to the pull request comes before any report run.
    const pushed = await play(
      here(pushTo(pr, sha(4)), { wait: 'false' }, { GITHUB_RUN_ID: '304' }),
      at(600_000),
    );
    expect(pushed.code).toBe(0);
    expect(service.count('message')).toBe(2);
    expect(messages(service)[1]).toContain('the FAQ');
    expect(comment.reactions).toEqual(['eyes']);
  });

  it('GitHub refuses the hand-off: the request is answered there, naming the thread to ask on', async () => {
    const world = await monorepo();
    const { gh, pr, service } = world;
    gh.workflow(APP, 'docs.yml', { inputs: ['docs-agent-thread'] });
    const { run } = await askOnDocs(world, 'the FAQ');
    expect(warnings(run)).toEqual([expect.stringContaining('docs-agent-docs')]);
    expect(world.docsPr.comments.at(-1)?.body).toContain(`Ask on #${pr.number}`);
    expect(service.count('message')).toBe(0);
  });
});

describe("the docs service's own pull request", () => {
  it('that no thread names: a writer\u2019s /docs there starts nothing', async () => {
    const { gh, service, step } = await docsThread(github, emulator);
    const theirs = gh.thread(APP, { opener: 'mintlify[bot]' });
    const comment = gh.addComment(APP, theirs.number, { login: 'octocat', body: '/docs tidy this' });
    const event = commentEvent(theirs.number, comment.body, { id: comment.id });
    const bot = gh.get(APP, theirs.number);
    const result = await play(
      step({
        ...event,
        payload: {
          ...event.payload,
          issue: { ...event.payload.issue, user: { login: bot.opener ?? 'mintlify[bot]', type: 'Bot' } },
        },
      }),
      at(),
    );
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(notices(result)).toEqual([expect.stringContaining("the docs service's app")]);
    expect(service.requests).toEqual([]);
  });
});

describe('docs in another repository: the docs repository forwards the request', () => {
  /** The thread's world with its docs in acme/docs (docsToken), its job reported, so its docs PR names it. */
  async function apart() {
    const world = await docsThread(github, emulator);
    const { gh, pr, docsLink, service, step } = world;
    gh.workflow(APP, 'docs.yml', { inputs: INPUTS });
    const opened = await play(step(pushTo(pr, sha(2), 'opened')), at());
    expect(opened.outputs.mode).toBe('created');
    const forwarded = { name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-docs': docsLink } } };
    return { ...world, service, forwarded };
  }

  it('the forwarded run hands it to the thread its note names; the lane reads and judges it in the docs repository, and sends it', async () => {
    const { gh, pr, docsPr, docsLink, service, step, forwarded } = await apart();
    gh.collaborator(DOCS, 'writer', 'write');
    const comment = gh.addComment(DOCS, docsPr.number, { login: 'writer', body: '/docs the FAQ' });
    const handing = await play(step(forwarded, { wait: 'false' }), at(60_000));
    expect(handing.code).toBe(0);
    expect(service.count('message')).toBe(0);
    expect(gh.dispatches(APP)).toEqual([
      expect.objectContaining({
        inputs: { 'docs-agent-thread': String(pr.number), 'docs-agent-docs': docsLink },
      }),
    ]);
    const lane = await play(step(laneEvent(pr.number, docsLink)), at(120_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(messages(service)).toEqual([expect.stringContaining('the FAQ')]);
    expect(comment.reactions).toEqual(['eyes']);
    expect(docsPr.comments.at(-1)?.body).toContain('sent to agent job');
  });

  it('someone with no role in the docs repository is refused there, whatever their role here', async () => {
    const { gh, pr, docsPr, docsLink, service, step } = await apart();
    // octocat writes acme/app, not acme/docs.
    const comment = gh.addComment(DOCS, docsPr.number, { login: 'octocat', body: '/docs the FAQ' });
    const lane = await play(step(laneEvent(pr.number, docsLink)), at(120_000));
    expect(lane.code).toBe(0);
    expect(service.count('message')).toBe(0);
    expect(comment.reactions).toEqual([]);
  });

  it('a docs pull request no note names (the service’s own): the forwarded run hands nothing on', async () => {
    const { gh, service, step } = await apart();
    const theirs = gh.thread(DOCS, { opener: 'mintlify[bot]' });
    gh.addComment(DOCS, theirs.number, { login: 'octocat', body: '/docs tidy this' });
    const link = `${gh.serverUrl}/${DOCS}/pull/${theirs.number}`;
    const result = await play(
      step(
        { name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-docs': link } } },
        { wait: 'false' },
      ),
      at(60_000),
    );
    expect(result.code).toBe(0);
    expect(gh.dispatches(APP)).toEqual([]);
    expect(service.count('message')).toBe(0);
  });

  it('a docs-agent-docs that is no pull request page is a bad input: nothing is sent anywhere', async () => {
    const { gh, service, step } = await apart();
    const before = gh.requests.length;
    const result = await play(
      step({ name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-docs': 'javascript:alert(1)' } } }),
      at(60_000),
    );
    expect(result.code).toBe(1);
    expect(gh.requests.length).toBe(before);
    expect(service.count('message')).toBe(0);
  });
});

/** GitHub's `deployment_status` event for a deployment of `sha` in state `state`, naming `url`. */
function deploymentStatus(sha: string, state: string, url?: string) {
  return {
    name: 'deployment_status',
    payload: {
      action: 'created',
      deployment: { id: 1, sha, ref: 'docs-branch', environment: 'preview' },
      deployment_status: { state, ...(url ? { environment_url: url } : {}) },
      repository: { name: 'app', owner: { login: 'acme' }, default_branch: 'main' },
      sender: { login: 'docs-host[bot]', type: 'Bot' },
    },
  };
}

describe("the docs PR's preview", () => {
  const URL = 'https://acme-docs-pr.preview.example/';

  it('deployed: the run on its deployment_status hands it on, and the lane links it in the kept comment and previewUrl, sending nothing', async () => {
    const world = await monorepo();
    const { gh, pr, docsPr, docsLink, service, here, kept } = world;
    gh.deploy(APP, {
      sha: docsPr.headSha,
      ref: docsPr.headRef,
      statuses: [{ state: 'in_progress' }, { state: 'success', environmentUrl: URL }],
    });
    // Its run is on the deployed branch (the docs PR's): the lane runs the default branch's workflow.
    const onBranch = {
      GITHUB_WORKFLOW_REF: `${APP}/.github/workflows/docs.yml@refs/heads/${docsPr.headRef}`,
    };
    const handing = await play(
      here(deploymentStatus(docsPr.headSha, 'success', URL), {}, onBranch),
      at(60_000),
    );
    expect(handing.code).toBe(0);
    expect(warnings(handing)).toEqual([]);
    expect(gh.dispatches(APP)).toEqual([
      {
        workflowId: 'docs.yml',
        ref: 'main',
        inputs: { 'docs-agent-thread': String(pr.number), 'docs-agent-docs': docsLink },
      },
    ]);
    const lane = await play(here(laneEvent(pr.number, docsLink), {}, { GITHUB_RUN_ID: '302' }), at(120_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(lane.outputs.previewUrl).toBe(URL);
    expect(kept()).toContain(`🔎 <a href="${URL}">Preview of the docs pull request</a>`);
    expect(readNote(kept())?.preview).toBe(URL);
    expect(service.count('message')).toBe(0);
    // The thread's next run says it too, and one that sends nothing (held by at-merge).
    const next = await play(here(pushTo(pr, sha(3)), {}, { GITHUB_RUN_ID: '303' }), at(180_000));
    expect(next.outputs.previewUrl).toBe(URL);
    expect(kept()).toContain(URL);
    const held = await play(
      here(pushTo(pr, sha(4)), { followUp: 'at-merge' }, { GITHUB_RUN_ID: '304' }),
      at(240_000),
    );
    expect(held.outputs).toMatchObject({ status: 'skipped', previewUrl: URL });
  });

  it.each([
    ['http', 'http://acme-docs-pr.preview.example/'],
    ['javascript', 'javascript:alert(1)'],
    ['with credentials', 'https://user:secret@preview.example/'],
  ])('never a URL that is not plain https (%s): nothing is handed on or linked', async (_what, url) => {
    const world = await monorepo();
    const { gh, pr, docsPr, docsLink, here, kept } = world;
    gh.deploy(APP, {
      sha: docsPr.headSha,
      ref: docsPr.headRef,
      statuses: [{ state: 'success', environmentUrl: url }],
    });
    const handing = await play(here(deploymentStatus(docsPr.headSha, 'success', url)), at(60_000));
    expect(handing.code).toBe(0);
    expect(gh.dispatches(APP)).toEqual([]);
    // Even a lane run handed the docs PR another way reads it and shows nothing.
    const lane = await play(here(laneEvent(pr.number, docsLink), {}, { GITHUB_RUN_ID: '302' }), at(120_000));
    expect(lane.outputs.previewUrl).toBeUndefined();
    expect(kept()).not.toContain('Preview of the docs pull request');
    expect(readNote(kept())?.preview).toBeUndefined();
  });

  it("an earlier job's docs PR (its note names another job): its preview is not linked on the thread", async () => {
    const world = await monorepo();
    const { gh, pr, docsPr, docsLink, here, kept } = world;
    const [note] = docsPr.comments;
    if (note) note.body = note.body.replace(/ job \S+ -->/, ' job job_earlier0000 -->');
    gh.deploy(APP, {
      sha: docsPr.headSha,
      ref: docsPr.headRef,
      statuses: [{ state: 'success', environmentUrl: URL }],
    });
    const lane = await play(here(laneEvent(pr.number, docsLink), {}, { GITHUB_RUN_ID: '302' }), at(120_000));
    expect(lane.code).toBe(0);
    expect(lane.outputs.previewUrl).toBeUndefined();
    expect(kept()).not.toContain(URL);
  });

  it('a deployment that did not succeed hands nothing on', async () => {
    const world = await monorepo();
    const { gh, docsPr, here } = world;
    const result = await play(here(deploymentStatus(docsPr.headSha, 'failure', URL)), at(60_000));
    expect(result.code).toBe(0);
    expect(notices(result)).toEqual([expect.stringContaining('Nothing to link')]);
    expect(gh.dispatches(APP)).toEqual([]);
  });

  it('docs in another repository: forwarded, the lane reads the deployment there with docsToken', async () => {
    const world = await docsThread(github, emulator);
    const { gh, pr, docsPr, docsLink, step } = world;
    gh.workflow(APP, 'docs.yml', { inputs: INPUTS });
    await play(step(pushTo(pr, sha(2), 'opened')), at());
    gh.deploy(DOCS, {
      sha: docsPr.headSha,
      ref: docsPr.headRef,
      statuses: [{ state: 'success', environmentUrl: URL }],
    });
    const lane = await play(step(laneEvent(pr.number, docsLink), {}, { GITHUB_RUN_ID: '302' }), at(120_000));
    expect(lane.code).toBe(0);
    expect(warnings(lane)).toEqual([]);
    expect(lane.outputs.previewUrl).toBe(URL);
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    expect(kept).toContain(URL);
  });
});
