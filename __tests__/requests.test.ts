// Queued `/docs` requests, rule by rule (src/decide/requests.ts): which comments are requests the
// thread's ledger still owes, whether an earlier run sent the run's own, and what the run carries
// and sends. The ledger's own rules are in ledger.test.ts; played through run() in
// run.queued.test.ts and run.requests-owed.test.ts.
import { describe, expect, it } from '@jest/globals';
import type { RequestLedger, ThreadComment } from '../src/core/ports.js';
import {
  carriedAnswer,
  carry,
  readQueue,
  REQUEST_TEXT_MAX,
  requestsPrompt,
  type QueuedRequest,
} from '../src/decide/requests.js';

const comment = (id: number, body: string, author = 'octocat', more: Partial<ThreadComment> = {}) => ({
  id,
  body,
  author,
  bot: false,
  url: `https://github.com/acme/app/pull/1#issuecomment-${id}`,
  review: false,
  ...more,
});
const request = (id: number, text: string, author = 'octocat'): QueuedRequest => ({
  ...comment(id, `/docs ${text}`, author),
  text,
});
const ledger = (floor: number, settled: RequestLedger['settled'] = []): RequestLedger => ({ floor, settled });
const options = (over: Partial<Parameters<typeof readQueue>[2]> = {}) => ({
  phrase: '/docs',
  standing: false,
  ledger: ledger(10),
  runId: 200,
  ...over,
});
const read = { ledger: ledger(10), refused: [], owed: [] };

describe('readQueue', () => {
  const thread = [
    comment(10, '/docs settled already'),
    comment(11, 'Looks good'),
    comment(12, '  /DOCS\nthe FAQ'),
    comment(13, '/docsify is not the phrase'),
    comment(14, '/docs'),
    comment(15, '/docs the README', 'mona'),
    comment(16, '/docs own request'),
  ];

  it('lists the requests above the floor that no run settled, oldest first, leaving out the run’s own', () => {
    const queue = readQueue({ id: 16, review: false }, [...thread].reverse(), options());
    expect(queue).toEqual({
      kind: 'open',
      owed: [
        expect.objectContaining({ id: 12, text: 'the FAQ' }),
        expect.objectContaining({ id: 15, author: 'mona' }),
      ],
    });
  });

  it('counts a bare phrase only with a standing prompt', () => {
    const queue = readQueue({ id: 16, review: false }, thread, options({ standing: true }));
    expect(queue.kind === 'open' && queue.owed.map((r) => [r.id, r.text])).toEqual([
      [12, 'the FAQ'],
      [14, ''],
      [15, 'the README'],
    ]);
  });

  it('tells requests apart by id, not by age: one older than a settled one is still owed', () => {
    // Run 150 sent 15 alone (12 was posted while it worked, and its prompt did not hold it).
    const queue = readQueue(undefined, thread, options({ ledger: ledger(10, [{ run: 150, ids: [15] }]) }));
    expect(queue.kind === 'open' && queue.owed.map((r) => r.id)).toEqual([12, 16]);
  });

  it('gathers for a run no request started (a push, the merge): every request owed', () => {
    const queue = readQueue(undefined, thread, options({ ledger: ledger(0) }));
    expect(queue.kind === 'open' && queue.owed.map((r) => r.id)).toEqual([10, 12, 15, 16]);
  });

  it('says which run sent the run’s own request, or an earlier run when the ledger no longer says', () => {
    const settled = ledger(11, [
      { run: 150, ids: [15] },
      { run: 120, ids: [12] },
    ]);
    expect(readQueue({ id: 15, review: false }, thread, options({ ledger: settled }))).toEqual({
      kind: 'carried',
      run: 150,
    });
    expect(readQueue({ id: 12, review: false }, thread, options({ ledger: settled }))).toEqual({
      kind: 'carried',
      run: 120,
    });
    expect(readQueue({ id: 5, review: false }, thread, options({ ledger: settled }))).toEqual({
      kind: 'carried',
    });
  });

  it('lets a re-run of the run that carried it go on, and reads a once-refused request afresh', () => {
    const queue = readQueue(
      { id: 15, review: false },
      thread,
      options({ ledger: ledger(14, [{ run: 200, ids: [15] }]) }),
    );
    expect(queue).toEqual({ kind: 'open', owed: [expect.objectContaining({ id: 16 })] });
    const refused = readQueue(
      { id: 15, review: false },
      thread,
      options({ ledger: ledger(14, [{ run: 190, ids: [15], refused: true }]) }),
    );
    expect(refused.kind).toBe('open');
  });

  it('gathers no review comment; a review comment of its own gathers the issue comments owed', () => {
    const withReview = [...thread, comment(17, '/docs a review comment', 'octocat', { review: true })];
    const queue = readQueue({ id: 3, review: true }, withReview, options());
    expect(queue.kind === 'open' && queue.owed.map((r) => r.id)).toEqual([12, 15, 16]);
  });
});

describe('carry', () => {
  it('alone: carries its own request, and leaves the prompt as it always was', () => {
    const own = request(16, 'own request');
    expect(carry(own, [], read, 'Keep it short')).toEqual({
      carried: {
        ...read,
        sent: [16],
        requests: [{ id: 16, author: 'octocat', url: own.url, review: false }],
      },
    });
  });

  it('with others: all of them, oldest first; the standing prompt first, then each with its author and link', () => {
    const own = request(14, 'own request');
    const { carried, prompt } = carry(
      own,
      [request(12, 'the FAQ', 'mona'), request(15, 'the README')],
      { ...read, refused: [13], owed: [11], readUpTo: 15 },
      'Keep it short',
    );
    expect(carried).toMatchObject({ sent: [12, 14, 15], refused: [13], owed: [11], readUpTo: 15 });
    expect(carried.requests.map((r) => r.id)).toEqual([12, 14, 15]);
    expect(prompt).toBe(
      [
        'Keep it short',
        '3 requests were made on this thread, oldest first:',
        'Request 1 of 3, by mona (https://github.com/acme/app/pull/1#issuecomment-12):\nthe FAQ',
        'Request 2 of 3, by octocat (https://github.com/acme/app/pull/1#issuecomment-14):\nown request',
        'Request 3 of 3, by octocat (https://github.com/acme/app/pull/1#issuecomment-15):\nthe README',
      ].join('\n\n'),
    );
  });

  it('for a run no request started: the requests owed, in the prompt after the standing prompt', () => {
    const { carried, prompt } = carry(undefined, [request(12, 'the FAQ')], read, 'Keep it short');
    expect(carried.sent).toEqual([12]);
    expect(prompt).toBe(
      'Keep it short\n\n1 request was made on this thread:\n\nRequest 1 of 1, by octocat (https://github.com/acme/app/pull/1#issuecomment-12):\nthe FAQ',
    );
  });

  it('settles no review comment (its id is of another series), and says what a bare request asks', () => {
    const own = { ...request(3, 'review'), review: true };
    expect(carry(own, [], read, undefined).carried.sent).toEqual([]);
    expect(carry(own, [request(12, '')], read, undefined).carried.sent).toEqual([12]);
    expect(requestsPrompt('Standing', [request(12, ''), request(13, 'x')])).toContain(
      'by octocat (https://github.com/acme/app/pull/1#issuecomment-12):\n(nothing after the phrase: the standing prompt above is the request)',
    );
  });

  it('cuts a long request in the prompt and says where the whole is', () => {
    const long = 'x'.repeat(REQUEST_TEXT_MAX + 10);
    const prompt = requestsPrompt(undefined, [request(12, long), request(13, 'short')]);
    expect(prompt).toContain(`${'x'.repeat(REQUEST_TEXT_MAX)}… (cut: the whole request is at its link)`);
    expect(prompt).not.toContain('x'.repeat(REQUEST_TEXT_MAX + 1));
  });
});

describe('carriedAnswer', () => {
  it('links the run that carried the request, escaped', () => {
    expect(carriedAnswer(202, 'https://github.com/acme/app/actions/runs/')).toBe(
      'This request was already delivered: <a href="https://github.com/acme/app/actions/runs/202">run 202</a> sent it, with the other requests queued on the thread. Nothing more was sent.',
    );
    expect(carriedAnswer(undefined, 'x')).toContain('an earlier run sent it');
    expect(carriedAnswer(1, 'https://e"x/')).toContain('href="https://e&quot;x/1"');
  });
});
