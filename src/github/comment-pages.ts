// A thread's comments as one run reads them, page by page: each page asked of GitHub once, whoever
// needs it (the kept comment's look-up, the requests queued on the thread, a docs PR's note), so
// a run does not pay twice for the page they share — on most threads the first and only one.
import { askedOnce } from './asked-once.js';
import type { Comment, GitHubApi } from './client.js';
import type { Thread } from './target.js';

/** One page (100) of a thread's comments, oldest first, and the number of its last page. */
export interface CommentsPage {
  comments: Comment[];
  last: number;
}

export class CommentPages {
  private read = new Map<number, Promise<CommentsPage>>();

  constructor(
    private readonly api: GitHubApi,
    private readonly thread: Pick<Thread, 'owner' | 'repo' | 'number'>,
  ) {}

  /** Page `n`, asked once (again after a fault: a passing one must not stay the answer). */
  page(n: number, signal: AbortSignal): Promise<CommentsPage> {
    const { owner, repo, number } = this.thread;
    return askedOnce(this.read, n, () =>
      this.api.commentsPage({ owner, repo, issue_number: number, page: n }, signal),
    );
  }

  /** Forgets what was read: the next read of a page asks GitHub again (another run may have written). */
  forget(): void {
    this.read.clear();
  }
}
