import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { label as word } from './untrusted.js';

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

/** The event as the runner names it, and its payload as read from the file. */
export interface RunnerEvent {
  name: string;
  payload: Payload;
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
    /** `workflow_dispatch`: someone ran the workflow by hand. */
    | { kind: 'dispatch' }
    | { kind: 'schedule' }
    /** `discussion` and `discussion_comment`. */
    | { kind: 'discussion' }
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
// never fails the parse, and a rule never reads a field of the wrong type.
const loose = <T extends z.core.SomeType>(schema: T) => z.catch(z.optional(schema), undefined);
const text = loose(z.string());
const number = loose(z.number());
const flag = loose(z.boolean());
const account = loose(z.object({ login: text, type: text }));
const repoName = z.catch(z.optional(z.nullable(z.object({ full_name: text }))), undefined);

const schema = z.object({
  action: text,
  sender: account,
  repository: loose(z.object({ id: number, full_name: text, owner: account, default_branch: text })),
  ref: text,
  before: text,
  after: text,
  deleted: flag,
  forced: flag,
  label: loose(z.object({ name: text })),
  comment: loose(z.object({ id: number, body: text })),
  issue: loose(z.object({ number, pull_request: loose(z.unknown()) })),
  pull_request: loose(
    z.object({
      number,
      head: loose(z.object({ sha: text, repo: repoName })),
      base: loose(z.object({ repo: repoName })),
    }),
  ),
  workflow_run: loose(
    z.object({
      event: text,
      head_sha: text,
      pull_requests: z.catch(z.array(z.unknown()), []),
      head_repository: repoName,
      actor: account,
      triggering_actor: account,
    }),
  ),
});
type Fields = z.output<typeof schema>;

const runPull = z.object({
  number: z.int().check(z.minimum(1)),
  base: loose(z.object({ repo: loose(z.object({ id: number, url: text })) })),
});

/** Reads the payload into the event; never throws, whatever the payload holds. */
export function parseEvent(name: string, payload: unknown): RunEvent {
  const parsed = schema.safeParse(isObject(payload) ? payload : {});
  const f: Fields = parsed.success ? parsed.data : {};
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
    case 'workflow-run': {
      const followed = f.workflow_run;
      return {
        ...common,
        kind,
        run: {
          pullRequests: (followed?.pull_requests ?? []).flatMap((entry) => {
            const read = runPull.safeParse(entry);
            if (!read.success) return [];
            const repo = read.data.base?.repo;
            return [
              { number: read.data.number, ...defined({ baseRepoId: repo?.id, baseRepoUrl: repo?.url }) },
            ];
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
  return defined({ number: pr.number, headSha: pr.head?.sha, fork: forkOf(pr) });
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

function isObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null;
}

/**
 * The pull request from another repository on an event whose run gets a read-only token and no
 * secrets (`pull_request`, a review, a review comment; `pull_request_target` runs with the base
 * repository's), with that repository's name while GitHub still has it.
 */
export function secretlessFork(event: RunEvent): { repo?: string } | undefined {
  const secretless =
    (event.kind === 'pull-request' && !event.target) ||
    event.kind === 'review' ||
    (event.kind === 'comment' && event.review);
  return secretless ? event.pull?.fork : undefined;
}

/** A ref as a person reads it: `the branch main`, `the tag v1.2.0`, else the ref itself. */
export function refWords(ref: unknown): string {
  const name = typeof ref === 'string' ? ref : '';
  const branch = /^refs\/heads\/(.+)$/.exec(name);
  if (branch) return `the branch ${word(branch[1] ?? '')}`;
  const tag = /^refs\/tags\/(.+)$/.exec(name);
  if (tag) return `the tag ${word(tag[1] ?? '')}`;
  return name ? `the ref ${word(name)}` : 'its ref';
}
