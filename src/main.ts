import * as core from '@actions/core';
import { context as github } from '@actions/github';
import { AgentClient } from './client.js';
import { systemClock, type Clock } from './clock.js';
import { connect, type Connection } from './dispatcher.js';
import { formatDuration } from './duration.js';
import { ActionFailure, type FaultContext } from './errors.js';
import { readInputs } from './inputs.js';
import type { AgentJob } from './job.js';
import { describeThrown, label } from './log.js';
import { sendOnce } from './start.js';
import { writeSummary } from './summary.js';
import { VERSION } from './version.js';
import { waitForJob, type Log } from './wait.js';

const log: Log = { info: core.info, warning: core.warning, debug: core.debug };

/**
 * The action: inputs → create → wait → outputs and summary. Every failure, whatever was thrown,
 * ends in one `core.setFailed` line; outputs and the summary are written on every path that
 * knows a job.
 */
export async function run(clock: Clock = systemClock): Promise<void> {
  const startedAt = clock.now();
  maskKey(core.getInput('apiKey'));

  let job: AgentJob | undefined;
  let connection: Connection | undefined;
  let failure: string | undefined;
  try {
    const inputs = readInputs((name) => core.getInput(name));
    connection = connect(inputs.baseUrl);
    if (connection.proxy) core.info(`Using the proxy ${connection.proxy}.`);
    const client = new AgentClient({
      baseUrl: inputs.baseUrl,
      projectId: inputs.projectId,
      apiKey: inputs.apiKey,
      dispatcher: connection.dispatcher,
      userAgent: userAgent(),
      now: clock.now,
    });
    const deadline = startedAt + inputs.timeoutMs;
    const context: FaultContext = {
      operation: 'create',
      baseUrl: inputs.baseUrl,
      projectId: inputs.projectId,
      proxy: connection.proxy,
    };

    core.info(`Creating an agent job in project ${label(inputs.projectId)} at ${inputs.baseUrl}.`);
    job = await sendOnce(() => client.createJob(inputs.prompt), { clock, deadline, log, context });
    const created: AgentJob = job;
    core.setOutput('jobId', created.id);
    core.info(`Created agent job ${label(created.id)} (${label(created.status)}).`);

    if (inputs.wait) {
      const result = await waitForJob((call) => client.getJob(created.id, call), created, {
        clock,
        deadline,
        pollIntervalMs: inputs.pollIntervalMs,
        createdAt: clock.now(),
        log,
        context: { ...context, operation: 'get' },
        onJob: (latest) => (job = latest),
      });
      job = result.job;
      if (result.timedOut) {
        failure = `Agent job ${label(job.id)} did not finish within ${formatDuration(inputs.timeoutMs)} (last status: ${label(job.status)}); it goes on in the service. Raise the timeout input to wait longer.`;
      }
    }
    failure ??= verdict(job);
  } catch (error) {
    failure = error instanceof ActionFailure ? error.message : unexpected(error);
    if (core.isDebug() && error instanceof Error && error.stack) core.debug(error.stack);
  } finally {
    // Sockets kept alive would hold the process open after the work is done.
    await connection?.dispatcher.destroy().catch(() => undefined);
  }

  if (job) {
    setOutputs(job);
    await writeSummary({ job, waitedMs: clock.now() - startedAt, failure }).catch((error: unknown) =>
      core.warning(`Could not write the step summary: ${describeThrown(error)}`),
    );
  }
  if (failure) core.setFailed(failure);
}

/** The step's error for a job that reached a terminal status, or `undefined` for success. */
function verdict(job: AgentJob): string | undefined {
  switch (job.status) {
    case 'completed':
      core.info(
        job.prLink
          ? `Agent job ${label(job.id)} completed: ${job.prLink}`
          : `Agent job ${label(job.id)} completed without a pull request (no files changed).`,
      );
      return undefined;
    case 'failed':
      return `Agent job ${label(job.id)} failed.`;
    case 'archived':
      return `Agent job ${label(job.id)} was archived before it completed.`;
    default:
      // Only reachable with `wait: false`: the job was created and goes on.
      core.info(`Agent job ${label(job.id)} goes on in the service (wait is false).`);
      return undefined;
  }
}

function setOutputs(job: AgentJob): void {
  core.setOutput('jobId', job.id);
  core.setOutput('status', job.status);
  core.setOutput('prLink', job.prLink ?? '');
}

/** Registered before anything is printed; each line too, in case a key was pasted with a break. */
function maskKey(key: string): void {
  if (!key) return;
  core.setSecret(key);
  for (const line of key.split(/\r?\n/)) if (line.trim() && line !== key) core.setSecret(line.trim());
}

function unexpected(error: unknown): string {
  return `The action failed unexpectedly: ${describeThrown(error).replace(/\.$/, '')}. Re-run the job with debug logging enabled for details.`;
}

/** Lets the service's operators see which workflow run made a request. */
function userAgent(): string {
  const run =
    github.runId && process.env.GITHUB_REPOSITORY
      ? ` (+${github.serverUrl}/${process.env.GITHUB_REPOSITORY}/actions/runs/${github.runId})`
      : '';
  return `agent-job-action/${VERSION}${run}`;
}
