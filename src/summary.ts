import * as core from '@actions/core';
import { formatDuration } from './duration.js';
import type { AgentJob } from './job.js';

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

/** The summary is HTML: text from the service must not add markup of its own. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** Only http(s) links are rendered as links: a `javascript:` prLink stays inert text. */
export function link(url: string | null | undefined, text = url): string {
  if (!url) return '';
  if (isHttpUrl(url)) return `<a href="${escapeHtml(url)}">${escapeHtml(text ?? url)}</a>`;
  return escapeHtml(url);
}

export function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** The rows of the summary table, as HTML cells. */
export function summaryRows(facts: SummaryFacts): [string, string][] {
  const { job } = facts;
  const source = job.source?.repository
    ? `${link(job.source.repository)}${job.source.ref ? ` (${escapeHtml(job.source.ref)})` : ''}`
    : '';
  return [
    ['Job', `<code>${escapeHtml(job.id)}</code>`],
    ['Status', escapeHtml(job.status)],
    ['Pull request', link(job.prLink) || 'none'],
    ['Model', escapeHtml(job.model ?? '')],
    ['Source', source],
    ['Waited', formatDuration(facts.waitedMs)],
  ];
}

/** Writes the step summary (DESIGN §5); a local run without a summary file skips it. */
export async function writeSummary(facts: SummaryFacts): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.debug('GITHUB_STEP_SUMMARY is not set; no step summary written.');
    return;
  }
  core.summary.addHeading('Documentation agent job', 3);
  core.summary.addTable(summaryRows(facts).map(([name, value]) => [{ data: name, header: true }, value]));
  if (facts.failure) core.summary.addRaw(`<p>${escapeHtml(facts.failure)}</p>`, true);
  await core.summary.write();
}
