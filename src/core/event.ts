import { DOCS_ASK_INPUT, LANE_INPUT } from './dispatch-inputs.js';
import { readFileSync } from 'node:fs';

// The one place that reads GitHub's event names: every rule asks the parsed event (`RunEvent`)
// by its `kind` and its fields. Read in the main bundle, without Octokit: deciding whether to act
// at all (a `/docs` request, who asked) must not cost the plain path the GitHub client.

/** The raw payload at `GITHUB_EVENT_PATH`: kept for what renders whole text (the context section). */
export interface Payload {
  /** Every event has fields of its own; the context section reads its text with types of its own. */
  [field: string]: unknown;
  action?: unknown;
  sender?: { login?: unknown; type?: unknown } | null;
  repository?: { [field: string]: unknown; id?: unknown; full_name?: unknown } | null;
  workflow_run?: { [field: string]: unknown; pull_requests?: unknown } | null;
  comment?: { [field: string]: unknown };
  issue?: { [field: string]: unknown; number?: unknown; pull_request?: unknown };
  pull_request?: {
    [field: string]: unknown;
    number?: unknown;
    head?: { sha?: unknown; repo?: { full_name?: unknown } | null } | null;
    base?: { repo?: { full_name?: unknown } | null } | null;
  };
}

/** An account the payload names. */
export interface Actor {
  login?: string;
  type?: string;
}

export interface Repository {
  id?: number;
  /** `owner/name`. */
  fullName?: string;
  owner?: Actor;
  defaultBranch?: string;
}

/** The pull request an event carries. */
export interface PullFacts {
  number?: number;
  headSha?: string;
  /**
   * Set when the pull request comes from another repository, with that repository's name while
   * GitHub still has it. By names, not by `head.repo.fork`: a repository that is itself a fork
   * opens pull requests within itself whose head says `fork: true`.
   */
  fork?: { repo?: string };
  /** The pull request is merged (a `closed` event says whether it was). */
  merged?: boolean;
  /** Who opened it (`pull_request.user`): a bot's pull request starts no job unless named. */
  opener?: Actor;
}

/** The issue an event carries; a pull request's issue events say `pull`. */
export interface IssueFacts {
  number?: number;
  pull: boolean;
}

/** A pull request a followed run ran on, as `workflow_run.pull_requests` lists it. */
export interface RunPull {
  number: number;
  baseRepoId?: number;
  /** The API URL of the base repository (`…/repos/owner/name`). */
  baseRepoUrl?: string;
}

/** What GitHub's event names mean to the action, grouped where the action reads them alike. */
export type EventKind = RunEvent['kind'];

/** What started the run a `workflow_run` follows. */
export interface Cause {
  kind: EventKind;
  /** `pull_request_target`: runs with the base repository's secrets. */
  target: boolean;
}

/** On `workflow_run`: the run this one follows. */
export interface FollowedRun {
  /** The commit the followed run ran on: this run's commit. */
  headSha?: string;
  /** The pull requests whose head the followed run ran on (none for a fork's). */
  pullRequests: RunPull[];
  /** `owner/name` of the repository the followed run's commit is in. */
  headRepository?: string;
  cause: Cause;
  actor?: Actor;
  triggeringActor?: Actor;
}

interface Common {
  /** GitHub's name for the event, for words only (`the pull_request_review event names no …`). */
  name: string;
  action?: string;
  sender?: Actor;
  repository?: Repository;
}

/** The event that started the run, validated: the fields the action's rules read. */
export type RunEvent = Common &
  (
    | {
        kind: 'push';
        ref?: string;
        before?: string;
        after?: string;
        /** The push deleted its ref. */
        deleted: boolean;
        forced: boolean;
      }
    | {
        kind: 'pull-request';
        /** `pull_request_target`: runs in the base repository, with its secrets. */
        target: boolean;
        pull?: PullFacts;
        /** On `labeled` and `unlabeled`: the label's name. */
        label?: string;
      }
    /** `pull_request_review`. */
    | { kind: 'review'; pull?: PullFacts }
    | {
        /** `issue_comment`, or `pull_request_review_comment` (`review`). */
        kind: 'comment';
        review: boolean;
        comment?: { id?: number; body?: string };
        /** On `issue_comment`. */
        issue?: IssueFacts;
        /** On `pull_request_review_comment`. */
        pull?: PullFacts;
      }
    | { kind: 'issue'; issue?: IssueFacts; label?: string }
    | { kind: 'workflow-run'; run: FollowedRun }
    | { kind: 'release' }
    /**
     * `deployment_status`: a deployment's status changed (a docs host's preview of a pull request):
     * its state, the commit deployed, and the URL it names (as given: checked where it is shown).
     */
    | { kind: 'deployment'; state?: string; sha?: string; environmentUrl?: string }
    /**
     * `workflow_dispatch`: someone ran the workflow by hand, or a report run handed a thread's
     * owed work to its lane (`lane`: the dispatch's LANE_INPUT, as given: a thread's number).
     */
    | {
        kind: 'dispatch';
        lane?: string;
        /** A `/docs` asked on a thread's docs pull request (DOCS_ASK_INPUT, as given: its URL). */
        docsAsk?: string;
      }
    | { kind: 'schedule' }
    /** `discussion`, and `discussion_comment` (`comment`). */
    | { kind: 'discussion'; comment: boolean }
    /** Any other event (or none, on a local run): read by name only. */
    | { kind: 'other' }
  );

/** How each of GitHub's names is read; every name not here is `other`. */
const KINDS: Readonly<Record<string, Cause & { review?: boolean }>> = {
  push: { kind: 'push', target: false },
  pull_request: { kind: 'pull-request', target: false },
  pull_request_target: { kind: 'pull-request', target: true },
  pull_request_review: { kind: 'review', target: false },
  issue_comment: { kind: 'comment', target: false },
  pull_request_review_comment: { kind: 'comment', target: false, review: true },
  issues: { kind: 'issue', target: false },
  workflow_run: { kind: 'workflow-run', target: false },
  release: { kind: 'release', target: false },
  deployment_status: { kind: 'deployment', target: false },
  workflow_dispatch: { kind: 'dispatch', target: false },
  schedule: { kind: 'schedule', target: false },
  discussion: { kind: 'discussion', target: false },
  discussion_comment: { kind: 'discussion', target: false },
};

function classify(name: string): Cause & { review: boolean } {
  const known = Object.hasOwn(KINDS, name) ? KINDS[name] : undefined;
  return { kind: known?.kind ?? 'other', target: known?.target ?? false, review: known?.review ?? false };
}

// Each field degrades to `undefined` when it is missing or not what GitHub documents: a payload
// never fails the parse, and a rule never reads a field of the wrong type. Plain readers, not a
// zod schema: every run parses its event before its first request, and building the schema cost
// the start-up about 3 ms (npm run bench), for the same checks.
type Raw = Readonly<Record<string, unknown>>;
type Account = { login?: string; type?: string };
type RepoName = { full_name?: string } | null;

const record = (value: unknown): Raw | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const number = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const flag = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);
const account = (value: unknown): Account | undefined => {
  const raw = record(value);
  return raw && defined({ login: text(raw.login), type: text(raw.type) });
};
/** A repository's name; `null` stays `null` (a head repository deleted since). */
const repoName = (value: unknown): RepoName | undefined => {
  if (value === null) return null;
  const raw = record(value);
  return raw && defined({ full_name: text(raw.full_name) });
};

/** The payload's fields the rules read, each of its type or absent. */
interface Fields {
  action?: string;
  sender?: Account;
  repository?: { id?: number; full_name?: string; owner?: Account; default_branch?: string };
  ref?: string;
  before?: string;
  after?: string;
  deleted?: boolean;
  forced?: boolean;
  label?: { name?: string };
  comment?: { id?: number; body?: string };
  issue?: { number?: number; pull_request?: unknown };
  pull_request?: {
    number?: number;
    merged?: boolean;
    user?: Account;
    head?: { sha?: string; repo?: RepoName };
    base?: { repo?: RepoName };
  };
  workflow_run?: {
    event?: string;
    head_sha?: string;
    pull_requests: unknown[];
    head_repository?: RepoName;
    actor?: Account;
    triggering_actor?: Account;
  };
}

function fieldsOf(payload: Raw): Fields {
  const repository = record(payload.repository);
  const label = record(payload.label);
  const comment = record(payload.comment);
  const issue = record(payload.issue);
  const pr = record(payload.pull_request);
  const head = record(pr?.head);
  const base = record(pr?.base);
  const followed = record(payload.workflow_run);
  return defined({
    action: text(payload.action),
    sender: account(payload.sender),
    repository:
      repository &&
      defined({
        id: number(repository.id),
        full_name: text(repository.full_name),
        owner: account(repository.owner),
        default_branch: text(repository.default_branch),
      }),
    ref: text(payload.ref),
    before: text(payload.before),
    after: text(payload.after),
    deleted: flag(payload.deleted),
    forced: flag(payload.forced),
    label: label && defined({ name: text(label.name) }),
    comment: comment && defined({ id: number(comment.id), body: text(comment.body) }),
    issue: issue && defined({ number: number(issue.number), pull_request: issue.pull_request }),
    pull_request:
      pr &&
      defined({
        number: number(pr.number),
        merged: flag(pr.merged),
        user: account(pr.user),
        head: head && defined({ sha: text(head.sha), repo: repoName(head.repo) }),
        base: base && defined({ repo: repoName(base.repo) }),
      }),
    workflow_run:
      followed &&
      defined({
        event: text(followed.event),
        head_sha: text(followed.head_sha),
        pull_requests: Array.isArray(followed.pull_requests) ? (followed.pull_requests as unknown[]) : [],
        head_repository: repoName(followed.head_repository),
        actor: account(followed.actor),
        triggering_actor: account(followed.triggering_actor),
      }),
  }) as Fields;
}

/** One of `workflow_run.pull_requests`: its number (a whole number from 1), and its base's repository. */
function runPull(entry: unknown): { number: number; id?: number; url?: string } | undefined {
  const raw = record(entry);
  const n = raw?.number;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) return undefined;
  const repo = record(record(raw?.base)?.repo);
  return { number: n, ...defined({ id: number(repo?.id), url: text(repo?.url) }) };
}

/** An event that names no pull request, issue or branch: a schedule, a run by hand, another repository's dispatch. */
export function namesNoThread(event: RunEvent): boolean {
  return event.kind === 'schedule' || event.kind === 'dispatch' || event.name === 'repository_dispatch';
}

/** Reads the payload into the event; never throws, whatever the payload holds. */
export function parseEvent(name: string, payload: unknown): RunEvent {
  const f = fieldsOf(isObject(payload) ? payload : {});
  const common: Common = {
    name,
    ...defined({
      action: f.action,
      sender: actor(f.sender),
      repository: f.repository && {
        ...defined({
          id: f.repository.id,
          fullName: f.repository.full_name,
          owner: actor(f.repository.owner),
          defaultBranch: f.repository.default_branch,
        }),
      },
    }),
  };
  const { kind, target, review } = classify(name);
  const pull = pullFacts(f);
  const issue = f.issue && { ...defined({ number: f.issue.number }), pull: Boolean(f.issue.pull_request) };
  const label = f.action === 'labeled' || f.action === 'unlabeled' ? (f.label?.name ?? '') : undefined;
  switch (kind) {
    case 'push':
      return {
        ...common,
        kind,
        ...defined({ ref: f.ref, before: f.before, after: f.after }),
        deleted: f.deleted === true,
        forced: f.forced === true,
      };
    case 'pull-request':
      return { ...common, kind, target, ...defined({ pull, label }) };
    case 'review':
      return { ...common, kind, ...defined({ pull }) };
    case 'comment':
      return {
        ...common,
        kind,
        review,
        ...defined({
          comment: f.comment && defined({ id: f.comment.id, body: f.comment.body }),
          ...(review ? { pull } : { issue }),
        }),
      };
    case 'issue':
      return { ...common, kind, ...defined({ issue, label }) };
    case 'discussion':
      return { ...common, kind, comment: name === 'discussion_comment' };
    case 'workflow-run': {
      const followed = f.workflow_run;
      return {
        ...common,
        kind,
        run: {
          pullRequests: (followed?.pull_requests ?? []).flatMap((entry) => {
            const read = runPull(entry);
            return read
              ? [{ number: read.number, ...defined({ baseRepoId: read.id, baseRepoUrl: read.url }) }]
              : [];
          }),
          cause: causeOf(followed?.event),
          ...defined({
            headSha: followed?.head_sha,
            headRepository: followed?.head_repository?.full_name,
            actor: actor(followed?.actor),
            triggeringActor: actor(followed?.triggering_actor),
          }),
        },
      };
    }
    case 'dispatch': {
      const inputs = record(record(payload)?.inputs);
      const lane = text(inputs?.[LANE_INPUT]);
      const docsAsk = text(inputs?.[DOCS_ASK_INPUT]);
      return { ...common, kind, ...(lane ? { lane } : {}), ...(docsAsk ? { docsAsk } : {}) };
    }
    case 'deployment': {
      const status = record(record(payload)?.deployment_status);
      const deployment = record(record(payload)?.deployment);
      return {
        ...common,
        kind,
        ...defined({
          state: text(status?.state),
          sha: text(deployment?.sha),
          environmentUrl: text(status?.environment_url),
        }),
      };
    }
    default:
      return { ...common, kind };
  }
}

function causeOf(name: string | undefined): Cause {
  const { kind, target } = classify(name ?? '');
  return { kind, target };
}

function pullFacts(f: Fields): PullFacts | undefined {
  const pr = f.pull_request;
  if (!pr) return undefined;
  const opener = pr.user && actor(pr.user);
  return defined({ number: pr.number, headSha: pr.head?.sha, fork: forkOf(pr), merged: pr.merged, opener });
}

/** A head repository deleted since (`null`) was a fork; a base without a name tells nothing. */
function forkOf(pr: NonNullable<Fields['pull_request']>): { repo?: string } | undefined {
  const base = pr.base?.repo?.full_name;
  if (base === undefined) return undefined;
  if (pr.head?.repo === null) return {};
  const head = pr.head?.repo?.full_name;
  if (head === undefined || head.toLowerCase() === base.toLowerCase()) return undefined;
  return { repo: head };
}

function actor(account: { login?: string | undefined; type?: string | undefined } | undefined) {
  return account && defined({ login: account.login, type: account.type });
}

/** The object without its `undefined` fields (the types are exact about optional fields). */
function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

function isObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null;
}

/** The event as the runner names it, and its payload as read from the file. */
export interface RunnerEvent {
  name: string;
  payload: Payload;
}

/** Reads the event once; a payload that is missing or not JSON reads as empty. */
export function readEvent(env: Readonly<Record<string, string | undefined>> = process.env): RunnerEvent {
  const name = env.GITHUB_EVENT_NAME ?? '';
  let payload: unknown = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
    } catch {
      payload = {};
    }
  }
  return { name, payload: isObject(payload) ? payload : {} };
}
