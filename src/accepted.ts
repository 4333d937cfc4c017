// What the run's steps share once the inputs are valid: the accepted setup each pass works on,
// and the GitHub side as it loads. Below main.ts and the steps it calls, so none of them imports
// main.ts back.
import type { PathFilter } from './decide/decide.js';
import type { Setup } from './decide/setup.js';
import type { ReportRequest } from './core/ports.js';
import type { DocsAsks, GitHubSteps } from './core/sweep-ports.js';

/**
 * What the run acts on once its inputs are valid (from then on the outputs say how it went): the
 * setup read once (inputs, context, request, features) and the compiled `paths`.
 */
export interface Accepted extends Setup {
  paths?: PathFilter;
  /** A lane run's pass on its thread, replaying the run that would have sent what is owed: the thread step's comment and status context. */
  standIn?: ReportRequest['standIn'];
  /** A lane run's replayed pass that sends nothing writes nothing either (a push's, which `followUp` held at the time). */
  quiet?: true;
  /** A lane run's pass that also carries what was asked on the thread's docs pull request, as read there. */
  onDocs?: DocsAsks;
}

/** The GitHub side, loaded on first ask; `asked` is its load once something asked for it. */
export interface LazyGitHub {
  load(): Promise<GitHubSteps | undefined>;
  readonly asked?: Promise<GitHubSteps | undefined>;
}
