// Types for scripts/dist-version-diff.mjs, which the release tests import.
export function differsOnlyByVersion(
  before: string,
  after: string,
  oldVersion: string,
  newVersion: string,
): boolean;
