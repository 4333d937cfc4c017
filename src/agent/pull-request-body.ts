import type { CheckProblem } from '../jobs/job-view.js';

/** The PR description: the agent's summary, the problems left (the PR is then a draft), provenance. */
export function pullRequestBody(o: {
  summary: string;
  problems: CheckProblem[];
  jobId: string;
  prompt: string;
}): string {
  const parts = [o.summary.trim()];
  if (o.problems.length > 0) {
    parts.push(
      `### Checks found problems\n\nThis pull request is a draft until they are fixed:\n\n${o.problems
        .map((p) => `- \`${p.file}${p.line ? `:${p.line}` : ''}\`: ${p.message}`)
        .join('\n')}`,
    );
  }
  const quoted = o.prompt
    .trim()
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
  parts.push(`---\nOpened by Redline for job \`${o.jobId}\`. Request:\n\n${quoted}`);
  return parts.join('\n\n');
}
