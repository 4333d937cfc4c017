import * as core from '@actions/core';
import { formatDuration } from './duration.js';
import type { AgentJob } from './job.js';
import { cell, link } from './untrusted.js';

export interface SummaryFacts {
  job: AgentJob;
  waitedMs: number;
  /** The step's error, when it failed. */
  failure?: string;
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
    ['Pull request', link(job.prLink) || 'none'],
    ['Model', cell(job.model ?? '')],
    ['Source', source],
    ['Waited', formatDuration(facts.waitedMs)],
  ];
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
