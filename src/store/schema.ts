import type { Generated } from 'kysely';

// Times are epoch milliseconds in both dialects (bigint on Postgres, integer on SQLite): they
// compare and index the same way everywhere, and the API layer turns them into ISO strings.

export interface ProjectTable {
  id: string;
  name: string;
  repository: string;
  ref: string;
  host: string;
  docs_root: string;
  model: string | null;
  /** JSON array of provider:model strings a job may ask for besides the default. */
  allowed_models: string;
  created_at: number;
}

export interface ApiKeyTable {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export type JobStatus = 'active' | 'completed' | 'archived' | 'failed';

export interface JobTable {
  id: string;
  project_id: string;
  status: JobStatus;
  repository: string;
  ref: string;
  model: string;
  pr_link: string | null;
  summary: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
  /** The job's branch once something was pushed (redline/<job id>). */
  branch: string | null;
  /** JSON TokenUsage summed over all runs. */
  usage: string | null;
  /** JSON array of CheckProblem left by the last run, or null. */
  checks: string | null;
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface RunTable {
  id: string;
  job_id: string;
  /** 1 for the job's first prompt, then one more per follow-up; runs of a job execute in seq order. */
  seq: number;
  prompt: string;
  status: RunStatus;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export type MessageRole = 'user' | 'assistant' | 'tool' | 'system';

export interface MessageTable {
  id: string;
  job_id: string;
  run_id: string;
  role: MessageRole;
  content: string;
  tool_name: string | null;
  /** JSON: tool arguments (summarised), token usage of the step. */
  data: string | null;
  created_at: number;
}

export interface PullRequestTable {
  id: string;
  project_id: string;
  number: number;
  job_id: string;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed' | 'merged';
  draft: number;
  head_sha: string;
  base_sha: string;
  diff: string;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyKeyTable {
  project_id: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: number;
}

export interface RateLimitTable {
  project_id: string;
  window_start: number;
  hits: number;
}

export interface SchemaMigrationTable {
  name: Generated<string>;
}

export interface DB {
  projects: ProjectTable;
  api_keys: ApiKeyTable;
  jobs: JobTable;
  runs: RunTable;
  messages: MessageTable;
  idempotency_keys: IdempotencyKeyTable;
  rate_limits: RateLimitTable;
  pull_requests: PullRequestTable;
}
