// The names a run puts on the docs pull request — labels, and reviewers (logins and teams) — and
// the one rule each must pass, wherever it comes from: the workflow's inputs (src/decide/
// input-rules.ts) or a record a run reads back (a waiting job's, src/core/ledger.ts). A record is
// written where others may write too, so it may ask only what an input could have asked.
import { hasUnsafe } from './untrusted.js';

/** GitHub's label names are at most 50 characters. */
export const MAX_LABEL = 50;

// A login: letters, digits, hyphens, and the underscore of managed users on GHE.com
// (handle_shortcode); a team: org/slug.
const LOGIN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const TEAM_SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Why a label name cannot be used, or `undefined`. A name `inPath` goes into a URL's path when it
 * is taken off again (`triggerLabel`), where `.` and `..` are dot segments that change which
 * resource is asked for and a `/` is one that servers and proxies may decode; `labels` are only
 * ever added, in a request's body. Controls and invisible characters would show one name and be
 * another.
 */
export function badLabel(name: string, inPath = true): string | undefined {
  if (name.length > MAX_LABEL) return `is longer than ${MAX_LABEL} characters`;
  if (name === '.' || name === '..') return 'is a dot segment of a URL path';
  // GitHub's label names may hold a `/` (`area/docs`): only one a URL path names cannot.
  if (inPath && name.includes('/')) return 'holds a /';
  if (hasUnsafe(name)) return 'holds a control, invisible or bidirectional character';
  return undefined;
}

/** Whether a reviewer is a GitHub login (`octocat`) or a team (`org/team-slug`), and nothing more. */
export function isReviewer(name: string): boolean {
  const [owner = '', team, ...rest] = name.split('/');
  return LOGIN.test(owner) && rest.length === 0 && (team === undefined || TEAM_SLUG.test(team));
}
