// Which pages of a thread's comments a run reads for its requests (readAbove), on threads of every
// length and with the ledger's floor on every kind of page: each page read once, at most ten from
// the newest back and ten more from the floor on, and what was read in one stretch from the floor.
import { describe, expect, it } from '@jest/globals';
import type { Comment } from '../src/github/client.js';
import { readAbove } from '../src/github/requests.js';

/** A thread of `count` comments whose ids are 1001, 1003, …: ids grow, with gaps. */
function thread(count: number) {
  const all: Comment[] = Array.from({ length: count }, (_, i) => ({
    id: 1001 + 2 * i,
    body: `comment ${i}`,
    login: 'mona',
    url: `https://github.example/c/${i}`,
  }));
  const last = Math.max(1, Math.ceil(count / 100));
  const asked: number[] = [];
  const page = (n: number) => {
    asked.push(n);
    return Promise.resolve({ comments: all.slice((n - 1) * 100, n * 100), last });
  };
  /** The id of comment `i` (0-based): the last one of page p is comment 100p - 1. */
  const id = (i: number) => 1001 + 2 * i;
  return { page, asked, id };
}

describe('readAbove', () => {
  it('reads a one-page thread once', async () => {
    const { page, asked } = thread(40);
    const listed = await readAbove(page, 0);
    expect(asked).toEqual([1]);
    expect(listed).toMatchObject({ complete: true });
    expect(listed.comments).toHaveLength(40);
  });

  it('reads from the newest back to the page the floor is on, and no further', async () => {
    const { page, asked, id } = thread(950);
    const listed = await readAbove(page, id(720));
    expect(asked).toEqual([1, 10, 9, 8]);
    expect(listed.complete).toBe(true);
  });

  it('on twelve pages with the floor on the first, reads the newest nine back and then pages 2 and 3: all of it, each page once', async () => {
    const { page, asked } = thread(1150);
    const listed = await readAbove(page, 0);
    expect(asked).toEqual([1, 12, 11, 10, 9, 8, 7, 6, 5, 4, 2, 3]);
    expect(listed.complete).toBe(true);
    expect(new Set(listed.comments.map((c) => c.id)).size).toBe(1150);
  });

  it('on thirty pages, finds the floor’s page and reads on from it until ten more pages were read: up to where it stopped', async () => {
    const { page, asked, id } = thread(3000);
    const listed = await readAbove(page, id(534));
    // Page 1 and the newest nine; pages 11, 6, 8, 7 find the floor on page 6; then on from it,
    // the pages not yet read, until ten more were: pages 6 to 15 in one stretch.
    expect(asked).toEqual([1, 30, 29, 28, 27, 26, 25, 24, 23, 22, 11, 6, 8, 7, 9, 10, 12, 13, 14, 15]);
    expect(listed).toMatchObject({ complete: false, readTo: id(1499) });
    const ids = new Set(listed.comments.map((c) => c.id));
    for (let i = 535; i <= 1499; i++) expect(ids.has(id(i))).toBe(true);
  });

  it('the next run, from the floor the last one reached, reads on from there', async () => {
    const { page, id } = thread(3000);
    const first = await readAbove(page, id(150));
    expect(first).toMatchObject({ complete: false, readTo: id(1099) });
    const second = await readAbove(page, id(1099));
    expect(second).toMatchObject({ complete: false, readTo: id(1999) });
    const third = await readAbove(page, id(1999));
    expect(third.complete).toBe(true);
  });
});
