import type { JobStatus, JobTable } from '../store/schema.js';

/** The job object of the public API (DESIGN.md §1): seven fixed fields plus additive extras. */
export interface JobView {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
  updatedAt: string;
  summary: string | null;
  error: { code: string; message: string } | null;
  branch: string | null;
  usage: TokenUsage | null;
  /** Problems the checks found in the job's last change; null before any check ran. */
  checks: CheckProblem[] | null;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface CheckProblem {
  file: string;
  line?: number;
  message: string;
}

export function toJobView(row: JobTable): JobView {
  return {
    id: row.id,
    status: row.status,
    source: { repository: row.repository, ref: row.ref },
    model: row.model,
    prLink: row.pr_link,
    createdAt: new Date(row.created_at).toISOString(),
    archivedAt: row.archived_at === null ? null : new Date(row.archived_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    summary: row.summary,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    branch: row.branch,
    usage: row.usage === null ? null : (JSON.parse(row.usage) as TokenUsage),
    checks: row.checks === null ? null : (JSON.parse(row.checks) as CheckProblem[]),
  };
}
