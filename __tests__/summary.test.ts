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

  it('list job, status, pull request, model, source and time waited', () => {
    const rows = summaryRows({
      job: {
        id: 'job_1',
        status: 'completed',
        prLink: null,
        model: 'm',
        source: { repository: 'https://g/r', ref: 'main' },
      },
      waitedMs: 95_000,
    });
    expect(rows).toEqual([
      ['Job', '<code>job_1</code>'],
      ['Status', 'completed'],
      ['Pull request', 'none'],
      ['Model', 'm'],
      ['Source', '<a href="https://g/r">https://g/r</a> (main)'],
      ['Waited', '1m 35s'],
    ]);
  });
});
