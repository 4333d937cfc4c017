import * as core from '@actions/core';
import { formatDuration } from './duration.js';
import type { AgentJob } from './job.js';
import { isPlainHttpUrl } from './log.js';
import { redact } from './secrets.js';

export interface SummaryFacts {
  job: AgentJob;
  waitedMs: number;
  /** The step's error, when it failed. */
  failure?: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const MAX_CELL = 200;

/**
 * Text from the service in a summary cell: one line (a blank line would end the HTML block and
 * let the rest render as Markdown), shortened (the summary is capped at 1 MiB), HTML escaped;
 * secrets redacted before any of that, while the runner's mask could still have matched them.
 */
export function cell(text: string, max = MAX_CELL): string {
  let line = redact(text)
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .trim();
  if (line.length > max) line = `${line.slice(0, max)}…`;
  return line.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** Only plain http(s) links are rendered as links: a `javascript:` prLink stays inert text. */
export function link(url: string | null | undefined): string {
  if (!url) return '';
  const clean = redact(url);
  return isPlainHttpUrl(clean) ? `<a href="${cell(clean, 2000)}">${cell(clean)}</a>` : cell(clean);
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
