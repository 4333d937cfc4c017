import type { Project } from '../projects/projects.js';
import type { CheckProblem, TokenUsage } from './job-view.js';
import type { JobTable, RunTable } from '../store/schema.js';

/** What a worker hands the agent for one run. */
export interface RunContext {
  run: RunTable;
  job: JobTable;
  project: Project;
  /** Aborted when the job is archived, the lease is lost, or the process shuts down. */
  signal: AbortSignal;
}

export interface RunResult {
  summary: string | null;
  prLink: string | null;
  /** Tokens this run used; added to the job's total. */
  usage?: TokenUsage;
  /** Problems the checks left in the change ([] when clean); undefined when nothing was checked. */
  checks?: CheckProblem[];
  /** The job branch, once pushed. */
  branch?: string | null;
}

/**
 * An unrecoverable failure with a job error code (DESIGN.md §1) and a message that says what
 * happened and what to do, holding no secret.
 */
export class JobFailure extends Error {
  /** Tokens the run used before it failed, added to the job's usage. */
  usage?: TokenUsage;

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'JobFailure';
  }
}

/** The one interface through which workers execute runs; the docs agent implements it. */
export interface RunExecutor {
  execute(ctx: RunContext): Promise<RunResult>;
}
