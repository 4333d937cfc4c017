import { readFileSync } from 'node:fs';
import { label as word } from './untrusted.js';

/**
 * The event that started the run, as the runner gives it: its name, and its payload from the file
 * at `GITHUB_EVENT_PATH`. Read in the main bundle, without Octokit: deciding whether to act at all
 * (a `/docs` request, who asked) must not cost the plain path the GitHub client.
 */
export interface RunnerEvent {
  name: string;
  payload: Payload;
}

/** The fields of GitHub's payloads that the decisions read; everything else is ignored. */
export interface Payload {
  /** Every event has fields of its own; the GitHub side reads them with types of its own. */
  [field: string]: unknown;
  action?: unknown;
  sender?: Account | null;
  repository?: { [field: string]: unknown; id?: unknown; full_name?: unknown; owner?: Account | null } | null;
  /** On `workflow_run`: the run this one follows. */
  workflow_run?: {
    event?: unknown;
    /** The commit the followed run ran on: this run's commit. */
    head_sha?: unknown;
    /** The pull requests whose head the followed run ran on (none for a fork's). */
    pull_requests?: unknown;
    head_repository?: { full_name?: unknown } | null;
    actor?: Account | null;
    triggering_actor?: Account | null;
  } | null;
  comment?: Authored & { id?: unknown; body?: unknown };
  issue?: Authored & { number?: unknown; pull_request?: unknown };
  pull_request?: Authored & {
    number?: unknown;
    head?: { sha?: unknown; repo?: { full_name?: unknown } | null } | null;
    base?: { repo?: { full_name?: unknown } | null } | null;
  };
  review?: Authored;
  /** On `labeled` and `unlabeled`: the label. */
  label?: { name?: unknown } | null;
  discussion?: Authored;
}

export interface Account {
  login?: unknown;
  type?: unknown;
}

export interface Authored {
  user?: { login?: unknown } | null;
  author_association?: unknown;
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

/** A string field of the payload, or `undefined`. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether the payload's pull request comes from another repository, with that repository's name.
 * By names, not by `head.repo.fork`: a repository that is itself a fork opens pull requests within
 * itself whose head says `fork: true`. A head repository deleted since (`null`) was a fork.
 */
export function pullRequestFork(payload: Payload): { repo?: string } | undefined {
  const pr = payload.pull_request;
  const base = text(pr?.base?.repo?.full_name);
  if (!pr || base === undefined) return undefined;
  if (pr.head?.repo === null) return {};
  const head = text(pr.head?.repo?.full_name);
  if (head === undefined || head.toLowerCase() === base.toLowerCase()) return undefined;
  return { repo: head };
}

/** A ref as a person reads it: `the branch main`, `the tag v1.2.0`, else the ref itself. */
export function refWords(ref: unknown): string {
  const name = text(ref) ?? '';
  const branch = /^refs\/heads\/(.+)$/.exec(name);
  if (branch) return `the branch ${word(branch[1] ?? '')}`;
  const tag = /^refs\/tags\/(.+)$/.exec(name);
  if (tag) return `the tag ${word(tag[1] ?? '')}`;
  return name ? `the ref ${word(name)}` : 'its ref';
}
