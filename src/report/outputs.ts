import * as core from '@actions/core';
import { ActionFailure } from '../service/errors.js';
import type { AgentJob } from '../core/job.js';
import { describeThrown, type Warn } from '../core/log.js';
import { escapeUnsafe, quote } from '../core/untrusted.js';
import { outputLink, pullRequestOf } from '../core/pull-request.js';
import { redact } from '../core/secrets.js';

/**
 * Outputs are read by later steps, often as `echo "$PR_LINK"` or `${{ steps.x.outputs.status }}`
 * inside `run:`. A line break in one would let the service write a line the runner obeys
 * (`::add-mask::`, `::stop-commands::`) or a terminal escape, so no output carries a control
 * character: ids and statuses have them escaped, a link that is not plain is left out, and the job
 * stays JSON with them escaped.
 */
export function setJobOutputs(
  id: string,
  job: AgentJob | undefined,
  warn: Warn,
  /** The `jobId` written already, as soon as it was known: it is not written twice. */
  written: string | undefined,
  /** The run's GitHub (`GITHUB_SERVER_URL`): `prNumber` and `prRepository` come from a link there. */
  serverUrl: string,
): void {
  if (id !== written) setOutput('jobId', escapeUnsafe(id));
  if (!job) return;
  setOutput('status', escapeUnsafe(job.status));
  const link = plainLink(job.prLink, 'prLink', warn);
  setOutput('prLink', link);
  // Parsed from the link, no request: what a later step needs to merge, label or announce it.
  const pr = link ? pullRequestOf(link, serverUrl, { githubCom: true }) : undefined;
  setOutput('prNumber', pr ? String(pr.number) : '');
  setOutput('prRepository', pr ? `${pr.owner}/${pr.repo}` : '');
  setOutput('job', escapeUnsafe(JSON.stringify(job)));
}

/**
 * A link for an output: as it came when it is a plain http(s) URL (printable ASCII, no spaces),
 * else empty, with a warning that quotes it inertly.
 */
function plainLink(link: string | null | undefined, name: string, warn: Warn): string {
  if (!link) return '';
  const plain = outputLink(link);
  if (plain) return plain;
  const clean = redact(link);
  warn(`The ${name} ${quote(clean, 200)} is not a plain http(s) URL; the ${name} output is left empty.`);
  return '';
}

/** The `commentUrl` output: GitHub's link to the kept comment, when it is a plain URL. */
export function setCommentUrl(url: string, warn: Warn): void {
  setOutput('commentUrl', plainLink(url, 'commentUrl', warn));
}

export function setOutput(name: string, value: string): void {
  try {
    // Job fields were redacted where they came in; this also covers what came from GitHub.
    core.setOutput(name, redact(value));
  } catch (error) {
    // E.g. GITHUB_OUTPUT names a file that cannot be written: the step must still fail in words.
    throw new ActionFailure(`Could not set the step's outputs: ${describeThrown(error)}.`);
  }
}
