import { parseEvent, readEvent, type Payload, type RunEvent } from './event.js';

/**
 * What the run knows of itself: the runner's variables and the event, read once at start-up into
 * one typed value that every step is handed (the GitHub side included), so nothing reads the
 * environment behind another's back and tests give their own.
 */
export interface RunContext {
  /** The event, parsed once: what every rule asks (its `name`, GitHub's, is for words only). */
  event: RunEvent;
  /** The payload as read, for what renders its text whole (the context section). */
  payload: Payload;
  /** `GITHUB_REPOSITORY` split; empty on a local run. */
  repo: { owner: string; repo: string };
  sha: string;
  serverUrl: string;
  apiUrl: string;
  runId: number;
  runAttempt: number;
  workflow: string;
  /** `GITHUB_WORKFLOW_REF`: the workflow's file and ref (`owner/repo/.github/workflows/docs.yml@refs/heads/main`); empty on a local run. */
  workflowRef: string;
  job: string;
  action: string;
  /** `GITHUB_ACTION_REPOSITORY`: the repository of the action this step runs (`owner/repo`); empty for a local one. */
  actionRepository: string;
  /** `GITHUB_ACTOR`: who started the run, when the payload names no sender. */
  actor: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function readRunContext(env: Env = process.env): RunContext {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const event = readEvent(env);
  return {
    event: parseEvent(event.name, event.payload),
    payload: event.payload,
    repo: owner && repo ? { owner, repo } : { owner: '', repo: '' },
    sha: env.GITHUB_SHA ?? '',
    serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    runId: Number(env.GITHUB_RUN_ID) || 0,
    runAttempt: Number(env.GITHUB_RUN_ATTEMPT) || 1,
    workflow: env.GITHUB_WORKFLOW ?? '',
    workflowRef: env.GITHUB_WORKFLOW_REF ?? '',
    job: env.GITHUB_JOB ?? '',
    action: env.GITHUB_ACTION ?? '',
    actionRepository: env.GITHUB_ACTION_REPOSITORY ?? '',
    actor: env.GITHUB_ACTOR ?? '',
  };
}
