// The order jest starts test files in. The demo and GitHub's local runner (each waits on npm and
// builds or loads the action), the release tests (a project in git, a type check and a build), the
// end-to-end files (the bundle as a child process) and the in-process runs of run() (real polls,
// request timeouts) take ten seconds to half a minute or more; the rest take a second or two.
// Started first, the long ones overlap each other and the quick ones fill the gaps; a long one
// started last would be the suite's tail. Within each group, jest's own order (slowest last time
// first, else largest first).
import Sequencer from '@jest/test-sequencer';

const RANKS = [
  /[\\/](demo|local-action)\.test\.ts$/,
  /[\\/]release(-check)?\.test\.ts$/,
  /[\\/]e2e\.[^\\/]*\.test\.ts$/,
  /[\\/]run\.[^\\/]*\.test\.ts$/,
];
const rank = (path) => {
  const at = RANKS.findIndex((pattern) => pattern.test(path));
  return at === -1 ? RANKS.length : at;
};

export default class LongestFirst extends Sequencer {
  sort(tests) {
    // Array.prototype.sort is stable: jest's order holds within a rank.
    return [...super.sort(tests)].sort((a, b) => rank(a.path) - rank(b.path));
  }
}
