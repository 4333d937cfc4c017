// Which tokens the GitHub work a workflow asked for needs, decided from the inputs alone (whatever
// the event), so that `readInputs` reads a token only when something will use it. Its own module,
// with its own shape of the inputs, so that the inputs and the features do not import each other.

/** The inputs that ask for GitHub work on some event, as far as the token rule needs to know them. */
export interface Asking {
  comment: boolean;
  thread: boolean;
  status: boolean;
  context: string;
  paths: readonly string[];
  labels: readonly string[];
  reviewers: readonly string[];
  trigger?: string;
  triggerLabel?: string;
  autoMerge?: string;
  sweep: boolean;
}

/** Which tokens the GitHub work asked for needs, whatever the event: a token nothing needs is never read. */
export function tokenNeeds(asked: Asking): { github: boolean; docs: boolean } {
  return {
    github:
      asked.comment ||
      asked.thread ||
      asked.sweep ||
      asked.status ||
      asked.context === 'auto' ||
      asked.trigger !== undefined ||
      asked.triggerLabel !== undefined ||
      asked.paths.length > 0,
    docs:
      asked.labels.length > 0 ||
      asked.reviewers.length > 0 ||
      asked.thread ||
      asked.sweep ||
      asked.autoMerge !== undefined,
  };
}
