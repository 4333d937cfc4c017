// The reads a run's decision makes more than once, asked of GitHub once: whether `paths` matches
// and what the prompt is told read the same comparison or the same pull request's files, and where
// the pull request stands is read for its labels and then for its head. Within one run, before
// anything is sent, each is taken as it was first read; a fault is not kept (the next read asks
// again) unless GitHub said the thing is not there, and a list of pages only once read to its end.
import type { GitHubApi } from './client.js';
import type { ChangedFile } from './context.js';
import { askedOnce } from './asked-once.js';
import { faultOf } from './errors.js';

/** `api`, with its comparisons, commits, pull requests and pull request files asked once each. */
export function readOnce(api: GitHubApi): GitHubApi {
  const kept = new Map<string, Promise<unknown>>();
  // GitHub's word that there is no such thing (a comparison it cannot make) is an answer too.
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> =>
    askedOnce(kept, key, read, (error) => faultOf(error).gone);
  const files = new Map<string, ChangedFile[][]>();
  const overrides: Partial<GitHubApi> = {
    compare: (at, signal) =>
      once(`compare ${at.owner}/${at.repo} ${at.basehead}`, () => api.compare(at, signal)),
    getCommit: (at, signal) =>
      once(`commit ${at.owner}/${at.repo} ${at.ref}`, () => api.getCommit(at, signal)),
    getPull: (at, signal) =>
      once(`pull ${at.owner}/${at.repo} ${at.pull_number}`, () => api.getPull(at, signal)),
    async *pullFiles(at, signal) {
      const key = `${at.owner}/${at.repo} ${at.pull_number}`;
      const known = files.get(key);
      if (known) {
        yield* known;
        return;
      }
      const pages: ChangedFile[][] = [];
      for await (const page of api.pullFiles(at, signal)) {
        pages.push(page);
        yield page;
      }
      files.set(key, pages);
    },
  };
  // Every other call goes to `api` itself.
  return Object.assign(Object.create(api) as GitHubApi, overrides);
}
