import { describe, expect, it } from '@jest/globals';
import { summaryRows } from '../src/report/summary.js';
import { cell, link } from '../src/core/untrusted.js';

describe('summary cells', () => {
  it('keep service text to one escaped, shortened line', () => {
    expect(cell('a\n\n[x](https://evil)\r\n<b>')).toBe('a [x](https://evil) &lt;b&gt;');
    expect(cell('x'.repeat(1000))).toHaveLength(201);
  });

  it('link only plain http(s) URLs', () => {
    expect(link('https://github.com/a/b/pull/1')).toBe(
      '<a href="https://github.com/a/b/pull/1">https://github.com/a/b/pull/1</a>',
    );
    expect(link('javascript:alert(1)')).toBe('javascript:alert(1)');
    expect(link('https://x/"onmouseover="alert(1)')).toBe(
      '<a href="https://x/&quot;onmouseover=&quot;alert(1)">https://x/&quot;onmouseover=&quot;alert(1)</a>',
    );
    expect(link('https://x/a b')).toBe('https://x/a b');
    expect(link(null)).toBe('');
  });

  it('say what the run did with the job: created, followed up, resumed, waited for or only read', () => {
    const job = { id: 'job_1', status: 'active' };
    const did = (facts: { mode?: string; onlyRead?: boolean }) =>
      summaryRows({ job, waitedMs: 0, ...facts }).find(([name]) => name === 'This run')?.[1];
    expect(did({ mode: 'created' })).toBe('created it');
    expect(did({ mode: 'followed-up' })).toBe('followed it up');
    expect(did({ mode: 'resumed' })).toBe("resumed an earlier attempt's job");
    expect(did({ mode: 'given' })).toBe('waited for the job given');
    expect(did({ mode: 'given', onlyRead: true })).toBe('only read it');
    expect(did({})).toBeUndefined();
  });

  it('list job, what the run did, status, pull request, model, source and time waited', () => {
    const rows = summaryRows({
      job: {
        id: 'job_1',
        status: 'completed',
        prLink: null,
        model: 'm',
        source: { repository: 'https://g/r', ref: 'main' },
      },
      waitedMs: 95_000,
      mode: 'followed-up',
    });
    expect(rows).toEqual([
      ['Job', '<code>job_1</code>'],
      ['This run', 'followed it up'],
      ['Status', 'completed'],
      ['Pull request', 'none'],
      ['Model', 'm'],
      ['Source', '<a href="https://g/r">https://g/r</a> (main)'],
      ['Waited', '1m 35s'],
    ]);
  });
});
