import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { startGitHubEmulator, type GitHubEmulator } from '../emulators/github.js';
import type { ReportRequest } from '../src/core/ports.js';
import { DOCS_TOKEN } from './github-world.js';
import { WORKFLOW_TOKEN } from './runner.js';

type Client = typeof import('../src/github/client.js');
type Steps = typeof import('../src/github/index.js');
type Comments = typeof import('../src/github/comment.js');
type Target = typeof import('../src/github/target.js');
type DocsPr = typeof import('../src/github/docs-pr.js');

/** The GitHub emulator and the GitHub side's modules, for a test file's in-process tests. */
export interface GitHubSide {
  gh: GitHubEmulator;
  gitHubApi: Client['gitHubApi'];
  /** The three steps' objects over one session, with the test's API, log and clock. */
  gitHubSteps: Steps['gitHubSteps'];
  KeptComment: Comments['KeptComment'];
  findThread: Target['findThread'];
  routeDocsPullRequest: DocsPr['routeDocsPullRequest'];
}

/**
 * Starts the GitHub emulator for a test file and points `GITHUB_API_URL` (and `env`) at it before
 * the GitHub side's modules are first imported: `@actions/github` reads them then, as on the
 * runner. After each test the emulator must have seen only what GitHub's description allows.
 * The fields are filled before the first test runs.
 */
export function gitHubForFile(env: Record<string, string> = {}): GitHubSide {
  const side = {} as GitHubSide;
  const saved = { ...process.env };
  beforeAll(async () => {
    side.gh = await startGitHubEmulator();
    Object.assign(process.env, { GITHUB_API_URL: side.gh.apiUrl, ...env });
    ({ gitHubApi: side.gitHubApi } = await import('../src/github/client.js'));
    ({ gitHubSteps: side.gitHubSteps } = await import('../src/github/index.js'));
    ({ KeptComment: side.KeptComment } = await import('../src/github/comment.js'));
    ({ findThread: side.findThread } = await import('../src/github/target.js'));
    ({ routeDocsPullRequest: side.routeDocsPullRequest } = await import('../src/github/docs-pr.js'));
  });
  afterEach(() => {
    expect(side.gh.violations).toEqual([]);
  });
  afterAll(async () => {
    for (const name of ['GITHUB_API_URL', ...Object.keys(env)]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await side.gh.close();
  });
  return side;
}

/**
 * The sockets undici connected while `work` ran (the GitHub clients' and the service's), each
 * with the port it reached, to tell afterwards which are still open.
 */
export async function connectedDuring(
  work: () => Promise<unknown>,
): Promise<{ port?: number; socket: Socket }[]> {
  const sockets: { port?: number; socket: Socket }[] = [];
  const connected = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    sockets.push({ ...(socket.remotePort === undefined ? {} : { port: socket.remotePort }), socket });
  };
  subscribe('undici:client:connected', connected);
  try {
    await work();
  } finally {
    unsubscribe('undici:client:connected', connected);
  }
  return sockets;
}

/**
 * What a thread's step asks of the GitHub side, as the unit tests of that side give it: the kept
 * comment, the workflow's token, a docs token the workflow set; `more` changes it.
 */
export function reportRequest(more: Partial<ReportRequest> = {}): ReportRequest {
  return {
    comment: true,
    labels: [],
    reviewers: [],
    githubToken: WORKFLOW_TOKEN,
    docsToken: DOCS_TOKEN,
    docsTokenGiven: true,
    baseUrl: 'https://api.example.com',
    projectId: 'proj',
    thread: true,
    status: true,
    wait: true,
    timeout: 600_000,
    ...more,
  };
}
