import * as core from '@actions/core';
import { formatDuration } from '../core/duration.js';
import type { AgentJob } from '../core/job.js';
import { pullRequestOf } from '../core/pull-request.js';
import { redact } from '../core/secrets.js';
import { cell, isPlainHttpUrl, link } from '../core/untrusted.js';

export interface SummaryFacts {
  job: AgentJob;
  waitedMs: number;
  /** The step's error, when it failed. */
  failure?: string;
  /** The run's GitHub: a docs pull request there (or on github.com) is named `owner/repo#N`. */
  serverUrl?: string;
}

/** The rows of the summary table, as HTML cells. */
export function summaryRows(facts: SummaryFacts): [string, string][] {
  const { job } = facts;
  const source = job.source?.repository
    ? `${link(job.source.repository)}${job.source.ref ? ` (${cell(job.source.ref)})` : ''}`
    : '';
  return [
    ['Job', `<code>${cell(job.id)}</code>`],
    ['Status', cell(job.status)],
    ['Pull request', pullRequestCell(job.prLink, facts.serverUrl) || 'none'],
    ['Model', cell(job.model ?? '')],
    ['Source', source],
    ['Waited', formatDuration(facts.waitedMs)],
  ];
}

/** The docs pull request as `owner/repo#N` (the `prRepository` and `prNumber` outputs), linked. */
function pullRequestCell(prLink: string | null | undefined, serverUrl = 'https://github.com'): string {
  if (!prLink) return '';
  const url = redact(prLink);
  const pr = isPlainHttpUrl(url) ? pullRequestOf(url, serverUrl, { githubCom: true }) : undefined;
  return pr
    ? `<a href="${cell(url, 2000)}">${cell(`${pr.owner}/${pr.repo}#${pr.number}`)}</a>`
    : link(prLink);
}

/** Writes the step summary (docs/design.md §5); a local run without a summary file skips it. */
export async function writeSummary(facts: SummaryFacts): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.debug('GITHUB_STEP_SUMMARY is not set; no step summary written.');
    return;
  }
  core.summary.addHeading('Documentation agent job', 3);
  core.summary.addTable(summaryRows(facts).map(([name, value]) => [{ data: name, header: true }, value]));
  if (facts.failure) core.summary.addRaw(`<p>${cell(facts.failure, 2000)}</p>`, true);
  await core.summary.write();
}
