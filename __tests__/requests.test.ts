// Queued `/docs` requests, rule by rule (src/decide/requests.ts): which comments are requests not
// yet delivered, whether an earlier run carried the run's own, what the run records and sends;
// and the note's record of deliveries (src/github/note.ts). Played through run() in
// run.queued.test.ts.
import { describe, expect, it } from '@jest/globals';
import type { ThreadComment, ThreadNote } from '../src/core/ports.js';
import {
  carriedAnswer,
  carry,
  readQueue,
  REQUEST_TEXT_MAX,
  requestsPrompt,
  type QueuedRequest,
} from '../src/decide/requests.js';
import { nextNote, noteLine, readNote } from '../src/github/note.js';

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
const note = (delivered?: ThreadNote['delivered']): ThreadNote => ({
  job: 'job-1',
  run: 100,
  attempt: 1,
  ...(delivered ? { delivered } : {}),
});
const options = (over: Partial<Parameters<typeof readQueue>[2]> = {}) => ({
  phrase: '/docs',
  standing: false,
  note: note([{ run: 100, after: 9, upTo: 10 }]),
  runId: 200,
  ...over,
});

describe('readQueue', () => {
  const thread = [
    comment(10, '/docs delivered already'),
    comment(11, 'Looks good'),
    comment(12, '  /DOCS\nthe FAQ'),
    comment(13, '/docsify is not the phrase'),
    comment(14, '/docs'),
    comment(15, '/docs the README', 'mona'),
    comment(16, '/docs own request'),
  ];

  it('lists the requests above the highest delivery, oldest first, leaving out the run’s own', () => {
    const queue = readQueue({ id: 16, review: false }, [...thread].reverse(), options());
    expect(queue).toEqual({
      kind: 'open',
      after: 10,
      waiting: [
        expect.objectContaining({ id: 12, text: 'the FAQ' }),
        expect.objectContaining({ id: 15, author: 'mona' }),
      ],
    });
  });

  it('counts a bare phrase only with a standing prompt', () => {
    const queue = readQueue({ id: 16, review: false }, thread, options({ standing: true }));
    expect(queue.kind === 'open' && queue.waiting.map((r) => [r.id, r.text])).toEqual([
      [12, 'the FAQ'],
      [14, ''],
      [15, 'the README'],
    ]);
  });

  it('with a note that keeps no record (or no note), counts every request older than the run’s own as delivered', () => {
    for (const old of [note(), undefined]) {
      const queue = readQueue({ id: 14, review: false }, thread, options({ note: old, standing: true }));
      expect(queue).toEqual({
        kind: 'open',
        after: 13,
        waiting: [expect.objectContaining({ id: 15 }), expect.objectContaining({ id: 16 })],
      });
    }
  });

  it('says which run carried the run’s own request, or an earlier run when the note no longer says', () => {
    const delivered = [
      { run: 150, after: 12, upTo: 16 },
      { run: 120, after: 9, upTo: 12 },
    ];
    expect(readQueue({ id: 15, review: false }, thread, options({ note: note(delivered) }))).toEqual({
      kind: 'carried',
      run: 150,
    });
    expect(readQueue({ id: 11, review: false }, thread, options({ note: note(delivered) }))).toEqual({
      kind: 'carried',
      run: 120,
    });
    expect(readQueue({ id: 5, review: false }, thread, options({ note: note(delivered) }))).toEqual({
      kind: 'carried',
    });
  });

  it('lets a re-run of the run that carried it go on', () => {
    const queue = readQueue(
      { id: 15, review: false },
      thread,
      options({ note: note([{ run: 200, after: 12, upTo: 16 }]) }),
    );
    expect(queue).toEqual({ kind: 'open', after: 16, waiting: [] });
  });

  it('gathers no review comment, and for a review comment of its own reads the order from the record only', () => {
    const withReview = [...thread, comment(17, '/docs a review comment', 'octocat', { review: true })];
    const queue = readQueue({ id: 3, review: true }, withReview, options());
    expect(queue.kind === 'open' && queue.waiting.map((r) => r.id)).toEqual([12, 15, 16]);
    // Without a record, nothing is known to be queued: only its own is sent.
    expect(readQueue({ id: 3, review: true }, withReview, options({ note: note() }))).toEqual({
      kind: 'open',
      after: Number.MAX_SAFE_INTEGER,
      waiting: [],
    });
  });
});

describe('carry', () => {
  it('alone: records its own request, and leaves the prompt as it always was', () => {
    const own = request(16, 'own request');
    expect(carry(own, [], 15, 'Keep it short')).toEqual({
      carried: {
        delivery: { after: 15, upTo: 16 },
        requests: [{ id: 16, author: 'octocat', url: own.url, review: false }],
      },
    });
  });

  it('with others: all of them, oldest first, up to the newest; the standing prompt first, then each with its author and link', () => {
    const own = request(14, 'own request');
    const { carried, prompt } = carry(
      own,
      [request(12, 'the FAQ', 'mona'), request(15, 'the README')],
      10,
      'Keep it short',
    );
    expect(carried.delivery).toEqual({ after: 10, upTo: 15 });
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

  it('records no delivery for a review comment alone, and says what a bare request asks', () => {
    const own = { ...request(3, 'review'), review: true };
    expect(carry(own, [], 10, undefined).carried.delivery).toBeUndefined();
    expect(carry(own, [request(12, '')], 10, undefined).carried.delivery).toEqual({ after: 10, upTo: 12 });
    expect(requestsPrompt('Standing', [request(12, ''), request(13, 'x')])).toContain(
      'by octocat (https://github.com/acme/app/pull/1#issuecomment-12):\n(nothing after the phrase: the standing prompt above is the request)',
    );
  });
});

describe('carry, bounded', () => {
  it('records no delivery at or past the first request left for the next send: none is lost', () => {
    const own = request(40, 'mine');
    const { carried } = carry(own, [request(12, 'a'), request(13, 'b')], 10, undefined, 14);
    expect(carried.delivery).toEqual({ after: 10, upTo: 13 });
    expect(carried.requests.map((r) => r.id)).toEqual([12, 13, 40]);
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

describe("the note's deliveries", () => {
  it('are kept highest first, one entry a run spanning both writes, at most 20, and read back', () => {
    let kept = nextNote(undefined, {
      job: 'job-1',
      run: 1,
      attempt: 1,
      uses: 1,
      delivery: { after: 0, upTo: 5 },
    });
    kept = nextNote(kept, { job: 'job-1', run: 2, attempt: 1, uses: 1, delivery: { after: 5, upTo: 9 } });
    kept = nextNote(kept, { job: 'job-1', run: 2, attempt: 1, uses: 1, delivery: { after: 7, upTo: 11 } });
    expect(kept.delivered).toEqual([
      { run: 2, after: 5, upTo: 11 },
      { run: 1, after: 0, upTo: 5 },
    ]);
    // A run that delivered nothing keeps the record; an older run's re-run adds its own.
    kept = nextNote(kept, { job: 'job-1', run: 3, attempt: 1 });
    expect(kept.delivered).toHaveLength(2);
    expect(
      nextNote(kept, { job: 'job-0', run: 0, attempt: 2, uses: 1, delivery: { after: 0, upTo: 1 } })
        .delivered,
    ).toHaveLength(3);
    for (let run = 10; run < 40; run++)
      kept = nextNote(kept, {
        job: 'job-1',
        run,
        attempt: 1,
        uses: 1,
        delivery: { after: run * 10, upTo: run * 10 + 5 },
      });
    expect(kept.delivered).toHaveLength(20);
    expect(kept.delivered?.[0]).toEqual({ run: 39, after: 390, upTo: 395 });
    expect(readNote(noteLine(kept))?.delivered).toEqual(kept.delivered);
  });
});
