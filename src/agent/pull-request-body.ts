import type { CheckProblem } from '../jobs/job-view.js';

/** One prompt of the job and what the agent said it did for it. */
export interface RunAccount {
  prompt: string;
  summary: string | null;
}

const quote = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');

/**
 * The PR description, rebuilt from every run of the job so a follow-up adds to it rather than
 * replacing it: the first run's summary, one section per follow-up, the problems left (the PR is
 * then a draft), and the requests it came from.
 */
export function pullRequestBody(o: { runs: RunAccount[]; problems: CheckProblem[]; jobId: string }): string {
  const [first, ...followUps] = o.runs;
  const parts = [first?.summary?.trim() || 'No summary.'];
  for (const f of followUps) {
    parts.push(`### Follow-up\n\n${quote(f.prompt)}\n\n${f.summary?.trim() || 'No summary.'}`);
  }
  if (o.problems.length > 0) {
    parts.push(
      `### Checks found problems\n\nThis pull request is a draft until they are fixed:\n\n${o.problems
        .map((p) => `- \`${p.file}${p.line ? `:${p.line}` : ''}\`: ${p.message}`)
        .join('\n')}`,
    );
  }
  parts.push(`---\nOpened by Redline for job \`${o.jobId}\`. Request:\n\n${quote(first?.prompt ?? '')}`);
  return parts.join('\n\n');
}
