import * as core from '@actions/core';
import { formatDuration } from '../core/duration.js';
import type { AgentJob } from '../core/job.js';
import { pullRequestOf } from '../core/pull-request.js';
import { redact } from '../core/secrets.js';
import { cell, isPlainHttpUrl, link, MAX_BLOCK, preformatted } from '../core/untrusted.js';
import { usesLine } from '../core/uses.js';

export interface SummaryFacts {
  job: AgentJob;
  waitedMs: number;
  /** The step's error, when it failed. */
  failure?: string;
  /** The run's GitHub: a docs pull request there (or on github.com) is named `owner/repo#N`. */
  serverUrl?: string;
  /** On a thread: the quota uses its runs spent, this run's included. */
  threadUses?: number;
  /** Which thread the job is for, when a run tells more than one (a push of several merges). */
  thread?: number;
  /** What this run did with the job: the `mode` output (`created`, `followed-up`, `resumed`, `given`). */
  mode?: string;
  /** A `given` job that was only read, not waited for (`wait: false`). */
  onlyRead?: boolean;
}

/** What the run did with the job, in the summary's words. */
const DID: Readonly<Record<string, string>> = {
  created: 'created it',
  'followed-up': 'followed it up',
  resumed: "resumed an earlier attempt's job",
  given: 'waited for the job given',
};

/** The rows of the summary table, as HTML cells. */
export function summaryRows(facts: SummaryFacts): [string, string][] {
  const { job } = facts;
  const source = job.source?.repository
    ? `${link(job.source.repository)}${job.source.ref ? ` (${cell(job.source.ref)})` : ''}`
    : '';
  const did = facts.onlyRead ? 'only read it' : facts.mode ? DID[facts.mode] : undefined;
  return [
    ['Job', `<code>${cell(job.id)}</code>`],
    ...(did ? [['This run', did] as [string, string]] : []),
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
  const heading =
    facts.thread === undefined
      ? ''
      : facts.thread === 0
        ? ' for the default branch'
        : ` for pull request #${facts.thread}`;
  core.summary.addHeading(`Documentation agent job${heading}`, 3);
  core.summary.addTable(summaryRows(facts).map(([name, value]) => [{ data: name, header: true }, value]));
  if (facts.threadUses !== undefined) core.summary.addRaw(`<p>${usesLine(facts.threadUses)}.</p>`, true);
  if (facts.failure) core.summary.addRaw(`<p>${cell(facts.failure, 2000)}</p>`, true);
  await core.summary.write();
}

/** What a dry run decided: the way it would have gone, and what it would have sent. */
export interface DryRunFacts {
  /** The `mode` output: `created`, `followed-up`, `resumed`, `given` or `skipped`. */
  mode: string;
  /** The job a follow-up or a wait would have gone to (a thread's job, a re-run's, `jobId`). */
  jobId?: string;
  /** Why it would have ended skipped. */
  skipped?: string;
  /** The whole prompt, as it would have left (the run's secrets already taken out). */
  prompt?: string;
}

/** The dry run's summary: the decision, and the exact prompt, inert. */
export async function writeDryRunSummary(facts: DryRunFacts): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.debug('GITHUB_STEP_SUMMARY is not set; no step summary written.');
    return;
  }
  core.summary.addHeading('Documentation agent: dry run', 3);
  core.summary.addRaw(
    '<p>Nothing was sent: no job or message to the service, nothing written to GitHub.</p>',
    true,
  );
  const rows: [string, string][] = [['Mode', cell(facts.mode)]];
  if (facts.jobId) rows.push(['Job', `<code>${cell(facts.jobId)}</code>`]);
  if (facts.skipped) rows.push(['Skipped', cell(facts.skipped, 2000)]);
  core.summary.addTable(rows.map(([name, value]) => [{ data: name, header: true }, value]));
  if (facts.prompt !== undefined) {
    core.summary.addHeading('The prompt it would send', 4);
    const { length } = facts.prompt;
    // The summary holds at most a block of MAX_BLOCK characters: a longer prompt says it was cut.
    if (length > MAX_BLOCK)
      core.summary.addRaw(
        `<p>Its first ${MAX_BLOCK.toLocaleString('en-US')} of ${length.toLocaleString('en-US')} characters: the step summary holds no more (${(length - MAX_BLOCK).toLocaleString('en-US')} left out here).</p>`,
        true,
      );
    core.summary.addRaw(preformatted(facts.prompt), true);
  }
  await core.summary.write();
}

/** A thread whose job's end a report run wrote, as the `reported` output lists it. */
export type SweptThread = ({ thread: number } | { commit: string }) & {
  jobId: string;
  /** The job's status, or `lost` (the service no longer knows it) or `timed-out` (past its timeout). */
  status: string;
  /** The docs pull request, as the `prLink` output would carry it; empty when none. */
  prLink: string;
};

/**
 * A report run's summary: each thread whose end it wrote, those it handed to their own run (which
 * writes the end and sends what is owed), and how many jobs it left at work.
 */
export async function writeSweepSummary(facts: {
  reported: SweptThread[];
  handedOff: number[];
  /** A lane run's quota uses: its follow-up with what the thread was owed. */
  uses: number;
  atWork: number;
  serverUrl: string;
}): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.debug('GITHUB_STEP_SUMMARY is not set; no step summary written.');
    return;
  }
  const { reported, handedOff, uses, atWork, serverUrl } = facts;
  core.summary.addHeading('Documentation agent: report run', 3);
  if (reported.length > 0) {
    const header = ['Thread', 'Job', 'Status', 'Pull request'].map((data) => ({ data, header: true }));
    core.summary.addTable([
      header,
      ...reported.map((r) => [
        'thread' in r ? `#${r.thread}` : `<code>${cell(r.commit.slice(0, 12))}</code>`,
        `<code>${cell(r.jobId)}</code>`,
        cell(r.status),
        pullRequestCell(r.prLink, serverUrl) || 'none',
      ]),
    ]);
  }
  const still = atWork === 0 ? '' : ` ${atWork} still at work, left waiting.`;
  const handed =
    handedOff.length === 0
      ? ''
      : ` Handed to their thread's own run, which writes the end and sends what is owed: ${handedOff.map((n) => `#${n}`).join(', ')}.`;
  const sent = uses > 0 ? ' What the thread was owed went to its job in one follow-up.' : '';
  const told =
    reported.length > 0
      ? `The end of ${reported.length} job${reported.length === 1 ? '' : 's'} was written on ${reported.length === 1 ? 'its thread' : 'their threads'}.`
      : handedOff.length + uses > 0
        ? 'This run wrote no end.'
        : 'No waiting job had ended: nothing was written.';
  core.summary.addRaw(`<p>${told}${sent}${handed}${still}</p>`, true);
  await core.summary.write();
}
