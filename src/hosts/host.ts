import type { Project } from '../projects/projects.js';

export interface PullRequest {
  number: number;
  url: string;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed' | 'merged';
  head: string;
  base: string;
}

export interface PullRequestChange {
  jobId: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  headSha: string;
  baseSha: string;
}

/** What Redline needs from a code host (DESIGN.md §4). */
export interface CodeHost {
  /** `Authorization` value for git over HTTP(S), or undefined when the remote needs none. */
  gitAuthorization(project: Project): Promise<string | undefined>;
  findPullRequest(project: Project, head: string): Promise<PullRequest | null>;
  openPullRequest(project: Project, change: PullRequestChange): Promise<PullRequest>;
  updatePullRequest(project: Project, number: number, change: PullRequestChange): Promise<PullRequest>;
}
