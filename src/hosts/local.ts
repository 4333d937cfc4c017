import type { Kysely } from 'kysely';
import { git } from '../git/git.js';
import { newId } from '../ids.js';
import type { Project } from '../projects/projects.js';
import type { DB, PullRequestTable } from '../store/schema.js';
import type { CodeHost, PullRequest, PullRequestChange } from './host.js';

/** Diffs stored with a pull request are cut beyond this, so one huge change cannot bloat the database. */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

export function pullRequestUrl(publicUrl: string, projectId: string, number: number): string {
  return `${publicUrl}/projects/${projectId}/pulls/${number}`;
}

/**
 * The embedded code host: the repository is a path on this machine, branches are pushed to it,
 * and a pull request is a row in Redline's database with the diff it had when last updated,
 * reviewable at its prLink. Works with no network at all.
 */
export class LocalHost implements CodeHost {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly publicUrl: string,
  ) {}

  async gitAuthorization(): Promise<undefined> {
    return undefined;
  }

  #view(row: PullRequestTable): PullRequest {
    return {
      number: row.number,
      url: pullRequestUrl(this.publicUrl, row.project_id, row.number),
      title: row.title,
      body: row.body,
      draft: row.draft === 1,
      state: row.state,
      head: row.head,
      base: row.base,
    };
  }

  async #diff(project: Project, change: PullRequestChange): Promise<string> {
    const diff = await git([
      '-C',
      project.repository,
      'diff',
      '--no-color',
      '--no-ext-diff',
      change.baseSha,
      change.headSha,
    ]);
    return diff.length > MAX_DIFF_BYTES
      ? `${diff.slice(0, MAX_DIFF_BYTES)}\n[diff cut at ${MAX_DIFF_BYTES} bytes]\n`
      : diff;
  }

  async findPullRequest(project: Project, head: string): Promise<PullRequest | null> {
    const row = await this.db
      .selectFrom('pull_requests')
      .selectAll()
      .where('project_id', '=', project.id)
      .where('head', '=', head)
      .executeTakeFirst();
    return row ? this.#view(row) : null;
  }

  async openPullRequest(project: Project, change: PullRequestChange): Promise<PullRequest> {
    const diff = await this.#diff(project, change);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (trx) => {
          const last = await trx
            .selectFrom('pull_requests')
            .select((eb) => eb.fn.max('number').as('n'))
            .where('project_id', '=', project.id)
            .executeTakeFirst();
          const now = Date.now();
          const row: PullRequestTable = {
            id: newId('pr'),
            project_id: project.id,
            number: Number(last?.n ?? 0) + 1,
            job_id: change.jobId,
            head: change.head,
            base: change.base,
            title: change.title,
            body: change.body,
            state: 'open',
            draft: change.draft ? 1 : 0,
            head_sha: change.headSha,
            base_sha: change.baseSha,
            diff,
            created_at: now,
            updated_at: now,
          };
          await trx.insertInto('pull_requests').values(row).execute();
          return this.#view(row);
        });
      } catch (err) {
        // Two PRs numbered at once: take the next number. The same head twice: that PR exists.
        const existing = await this.findPullRequest(project, change.head);
        if (existing) return existing;
        if (attempt < 3) continue;
        throw err;
      }
    }
  }

  async updatePullRequest(project: Project, number: number, change: PullRequestChange): Promise<PullRequest> {
    const diff = await this.#diff(project, change);
    await this.db
      .updateTable('pull_requests')
      .set({
        title: change.title,
        body: change.body,
        draft: change.draft ? 1 : 0,
        head_sha: change.headSha,
        base_sha: change.baseSha,
        diff,
        updated_at: Date.now(),
      })
      .where('project_id', '=', project.id)
      .where('number', '=', number)
      .execute();
    const updated = await getPullRequest(this.db, this.publicUrl, project.id, number);
    if (!updated) throw new Error(`pull request #${number} of ${project.id} disappeared`);
    return updated;
  }
}

export interface StoredPullRequest extends PullRequest {
  projectId: string;
  jobId: string;
  headSha: string;
  baseSha: string;
  diff: string;
  createdAt: string;
  updatedAt: string;
}

/** A project's pull requests with the prLink their jobs were given. */
function pullRequestsOf(db: Kysely<DB>, projectId: string) {
  return db
    .selectFrom('pull_requests')
    .leftJoin('jobs', 'jobs.id', 'pull_requests.job_id')
    .selectAll('pull_requests')
    .select('jobs.pr_link')
    .where('pull_requests.project_id', '=', projectId);
}

export async function listPullRequests(
  db: Kysely<DB>,
  publicUrl: string,
  projectId: string,
): Promise<StoredPullRequest[]> {
  const rows = await pullRequestsOf(db, projectId).orderBy('pull_requests.number').execute();
  return rows.map((r) => storedView(r, publicUrl));
}

export async function getPullRequest(
  db: Kysely<DB>,
  publicUrl: string,
  projectId: string,
  number: number,
): Promise<StoredPullRequest | null> {
  const row = await pullRequestsOf(db, projectId)
    .where('pull_requests.number', '=', number)
    .executeTakeFirst();
  return row ? storedView(row, publicUrl) : null;
}

/** The URL is the prLink the job was given (made by the server that opened it), else derived. */
function storedView(r: PullRequestTable & { pr_link: string | null }, publicUrl: string): StoredPullRequest {
  return {
    number: r.number,
    url: r.pr_link ?? pullRequestUrl(publicUrl, r.project_id, r.number),
    title: r.title,
    body: r.body,
    draft: r.draft === 1,
    state: r.state,
    head: r.head,
    base: r.base,
    projectId: r.project_id,
    jobId: r.job_id,
    headSha: r.head_sha,
    baseSha: r.base_sha,
    diff: r.diff,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}
