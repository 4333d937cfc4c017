// GitHub's own recorded payloads (@octokit/webhooks-examples) for every event the action reads,
// each read as the runner hands it over (GITHUB_EVENT_NAME, the payload file at GITHUB_EVENT_PATH,
// GITHUB_SHA, GITHUB_REPOSITORY) and run through the decision, in process against the GitHub
// emulator: whether it is a request, the gate, the commit the status would go on, the thread it
// reports to, its status context and its context section. Nothing may throw, and each commit and
// thread is the one GitHub's payload names.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitHubForFile } from '../__fixtures__/github-api.js';
import { recorder } from '../__fixtures__/log.js';
import { WORKFLOW_TOKEN } from '../__fixtures__/runner.js';
import { admit } from '../src/decide/admission.js';
import { parseEvent, type Payload } from '../src/core/event.js';
import { eventNeeds } from '../src/decide/features.js';
import { readInputs, type Inputs } from '../src/decide/inputs.js';
import { readRunContext, type RunContext } from '../src/core/run-context.js';
import { readRequest } from '../src/decide/trigger.js';

type Commits = typeof import('../src/github/commits.js');
type Gather = typeof import('../src/github/gather.js');
type Context = typeof import('../src/github/context.js');
type Status = typeof import('../src/github/status.js');
type Target = typeof import('../src/github/target.js');

interface Recorded {
  name: string;
  examples: Payload[];
}
const recorded = createRequire(import.meta.url)(
  '@octokit/webhooks-examples/api.github.com/index.json',
) as Recorded[];

/** The events the action reads; GitHub records no `pull_request_target`, whose payload is a `pull_request`'s. */
const READ = [
  'push',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'issue_comment',
  'issues',
  'workflow_run',
  'release',
  'workflow_dispatch',
  'repository_dispatch',
  'discussion',
  'discussion_comment',
];
const examplesOf = (name: string): Payload[] => recorded.find((e) => e.name === name)?.examples ?? [];
const cases: [string, number, Payload][] = [
  ...READ.flatMap((name) =>
    examplesOf(name).map((payload, i): [string, number, Payload] => [name, i, payload]),
  ),
  ...examplesOf('pull_request').map((payload, i): [string, number, Payload] => [
    'pull_request_target',
    i,
    payload,
  ]),
];

const github = gitHubForFile();
const modules = {} as { commits: Commits; gather: Gather; context: Context; status: Status; target: Target };
beforeAll(async () => {
  modules.commits = await import('../src/github/commits.js');
  modules.gather = await import('../src/github/gather.js');
  modules.context = await import('../src/github/context.js');
  modules.status = await import('../src/github/status.js');
  modules.target = await import('../src/github/target.js');
});

/** The merge commit GITHUB_SHA names on a pull request, the default branch's head elsewhere: never a payload's. */
const RUNNER_SHA = 'e'.repeat(40);
/** The head of Codertocat/Hello-World#2 as the emulator tells it (`issues` on a pull request reads it). */
const PULL_2_HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const never = () => new AbortController().signal;

/** The run's context as the runner would give it for this payload. */
function runnerContext(name: string, payload: Payload): RunContext {
  const dir = mkdtempSync(join(tmpdir(), 'event-'));
  writeFileSync(join(dir, 'event.json'), JSON.stringify(payload));
  const repository = payload.repository?.full_name;
  return readRunContext({
    GITHUB_EVENT_NAME: name,
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_SHA: RUNNER_SHA,
    GITHUB_REPOSITORY: typeof repository === 'string' ? repository : 'acme/app',
    GITHUB_SERVER_URL: github.gh.serverUrl,
    GITHUB_API_URL: github.gh.apiUrl,
    GITHUB_RUN_ID: '7',
    GITHUB_WORKFLOW: 'Docs',
    GITHUB_JOB: 'docs',
    GITHUB_ACTION: '__acme_docs-agent',
    GITHUB_ACTION_REPOSITORY: 'acme/docs-agent',
    GITHUB_ACTOR: 'Codertocat',
  });
}

function inputs(eventName: string): Inputs {
  const values: Record<string, string> = {
    prompt: 'Document the change.',
    projectId: 'proj',
    apiKey: 'mint_events_key',
    baseUrl: 'https://api.example.com',
    wait: 'true',
    timeout: '10m',
    pollInterval: '10s',
    githubToken: WORKFLOW_TOKEN,
    trigger: '/docs',
    triggerLabel: 'docs',
    thread: 'true',
    status: 'true',
    context: 'auto',
  };
  return readInputs((name) => values[name] ?? '', process.cwd(), eventNeeds(parseEvent(eventName, {})));
}

interface Decided {
  /** A deleted ref: the step's skip, before the GitHub side loads. */
  skipped?: string;
  sha?: string;
  /** Why there is no commit, said in the notice; whether one was given. */
  saysWhyNoCommit?: boolean;
  thread?: { number: number; pull: boolean };
  /** On a push with no pull request: the ref, named as a branch or a tag. */
  pushedTo?: string;
  context?: string;
  sectionFits?: boolean;
  violations?: string[];
}

/** What the decision reads from the payload, as the run would read it. */
async function decided(name: string, payload: Payload): Promise<Decided> {
  const run = runnerContext(name, payload);
  const { event } = run;
  const given = inputs(name);
  const request = readRequest(given.trigger, event, given.triggerLabel);
  const admission = await admit(
    given,
    event,
    request,
    async () => ({ permission: 'write', role: 'write' }),
    run.actor,
  );
  if (request.kind === 'skip' && request.why.startsWith('the push deleted')) {
    return { skipped: admission.kind === 'skip' ? admission.notice : 'went ahead' };
  }
  const api = github.gitHubApi(WORKFLOW_TOKEN, 'events-test', github.gh.apiUrl);
  const warn = (line: string) => recorder().warning(line);
  const commits = await modules.commits.runCommits(api, run, warn, never());
  const found = modules.target.eventHasThread(event)
    ? await modules.target.findThread(api, run, never())
    : { none: 'no thread' };
  const section = await modules.gather.gatherContext(api, run, warn, never());
  return {
    ...(commits.sha ? { sha: commits.sha } : { saysWhyNoCommit: typeof commits.none === 'string' }),
    ...(found.thread ? { thread: { number: found.thread.number, pull: found.thread.pull } } : {}),
    ...(name === 'push'
      ? { pushedTo: /, pushed to (.*)$/.exec(found.none ?? '')?.[1] ?? String(found.none) }
      : {}),
    context: modules.status.statusContext(run, { baseUrl: 'https://api.example.com', projectId: 'proj' }),
    sectionFits: section ? modules.context.renderContext(section, 4000).length <= 4000 : true,
    // Reading what the event names sent only what GitHub's description allows (the emulator checks).
    violations: [...github.gh.violations],
  };
}

/** What GitHub's payload names: the commit, the thread, the ref. */
function named(name: string, p: Payload): Decided {
  const field = (value: unknown) => value as { [key: string]: unknown } | undefined;
  const rest = { context: 'docs agent: Docs / docs (proj)', sectionFits: true, violations: [] };
  switch (name) {
    case 'pull_request':
    case 'pull_request_target':
    case 'pull_request_review':
    case 'pull_request_review_comment':
      return {
        sha: String(field(p.pull_request?.head)?.sha),
        thread: { number: Number(p.pull_request?.number), pull: true },
        ...rest,
      };
    case 'issues':
    case 'issue_comment': {
      const pull = Boolean(p.issue?.pull_request);
      return {
        ...(pull ? { sha: PULL_2_HEAD } : { saysWhyNoCommit: true }),
        thread: { number: Number(p.issue?.number), pull },
        ...rest,
      };
    }
    case 'push': {
      const ref = String(p.ref);
      const [kind, short] = ref.startsWith('refs/tags/') ? ['tag', ref.slice(10)] : ['branch', ref.slice(11)];
      if (p.deleted === true)
        return {
          skipped: `Skipped: the push deleted the ${kind} ${short}, which leaves nothing to document.`,
        };
      // A tag is not a branch.
      return { sha: String(p.after), pushedTo: `the ${kind} ${short}`, ...rest };
    }
    case 'workflow_run':
      // The recorded runs name no pull request of their own repository (one names another's).
      return { sha: String(field(p.workflow_run)?.head_sha), ...rest };
    default:
      return { sha: RUNNER_SHA, ...rest };
  }
}

describe("GitHub's recorded payloads", () => {
  beforeAll(() => {
    const gh = github.gh;
    gh.grant(WORKFLOW_TOKEN, {
      login: 'github-actions[bot]',
      type: 'Bot',
      read: ['Codertocat/Hello-World', 'octo-org/octo-repo'],
      write: ['Codertocat/Hello-World', 'octo-org/octo-repo'],
    });
    gh.thread('Codertocat/Hello-World', { pull: false });
    gh.thread('Codertocat/Hello-World', { headSha: PULL_2_HEAD });
  });

  it('cover every event the action reads', () => {
    for (const name of READ) expect(examplesOf(name).length).toBeGreaterThan(0);
    expect(new Set(cases.map(([name]) => name))).toEqual(new Set([...READ, 'pull_request_target']));
    expect(cases.length).toBeGreaterThan(90);
  });

  it.each(cases)(
    '%s #%i: decided without a fault, on the commit and thread it names',
    async (name, _, payload) => {
      expect(await decided(name, payload)).toEqual(named(name, payload));
    },
  );

  it("takes a workflow_run's pull request when it is in the run's own repository", async () => {
    const withPull = recorded
      .find((e) => e.name === 'workflow_run')
      ?.examples.find(
        (p) => Array.isArray(p.workflow_run?.pull_requests) && p.workflow_run.pull_requests.length > 0,
      );
    expect(withPull).toBeDefined();
    const api = github.gitHubApi(WORKFLOW_TOKEN, 'events-test', github.gh.apiUrl);
    // As recorded: the pull request is Codertocat/Hello-World's, the run octo-org/octo-repo's.
    const elsewhere = runnerContext('workflow_run', withPull as Payload);
    expect(await modules.target.findThread(api, elsewhere, never())).toEqual({
      none: 'the run this workflow_run follows belongs to no pull request of octo-org/octo-repo',
    });
    // The same run in the pull request's own repository follows it.
    const own = runnerContext('workflow_run', {
      ...withPull,
      repository: { id: 186853002, full_name: 'Codertocat/Hello-World' },
    });
    expect(await modules.target.findThread(api, own, never())).toEqual({
      thread: { owner: 'Codertocat', repo: 'Hello-World', number: 2, pull: true, fork: false },
    });
    expect(await modules.commits.runCommits(api, own, () => undefined, never())).toEqual({
      head: '3484a3fb816e0859fd6e1cea078d76385ff50625',
      sha: '3484a3fb816e0859fd6e1cea078d76385ff50625',
    });
  });
});
