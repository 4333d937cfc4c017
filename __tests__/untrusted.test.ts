import { describe, expect, it } from '@jest/globals';
import { describeThrown } from '../src/core/log.js';
import { cell, escapeUnsafe, hasUnsafe, inert, label, preformatted, quote } from '../src/core/untrusted.js';

/** What the runner would take as a workflow command: a line whose trimmed start is `::`. */
function startsCommand(printed: string): boolean {
  return printed.split(/\r\n|\r|\n/).some((line) => line.trim().startsWith('::'));
}

describe('quote', () => {
  it.each([
    '::add-mask::x',
    'ok\n::error::pwned',
    'ok\r::warning::pwned',
    '  ::stop-commands::tok',
    'a\u2028::set-output name=x::y',
    '\u0085::debug::next-line',
  ])('keeps %j from becoming a workflow command', (text) => {
    const printed = quote(text);
    expect(startsCommand(printed)).toBe(false);
    expect(printed.startsWith('"')).toBe(true);
    expect(printed).not.toMatch(/[\r\n\u2028\u2029\u0085]/);
  });

  it('shortens long text', () => {
    const printed = quote('x'.repeat(5000));
    expect(printed.length).toBeLessThan(320);
    expect(printed.endsWith('…"')).toBe(true);
  });

  it('escapes bidi overrides and quotes', () => {
    expect(quote('a\u202eb"c')).toBe('"a\\u202eb\\"c"');
  });
});

describe('invisible and bidirectional characters', () => {
  const HIDDEN = [
    0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066,
    0x2067, 0x2068, 0x2069, 0xfeff,
  ].map((code) => String.fromCharCode(code));

  it.each(HIDDEN.map((ch) => [`U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, ch]))(
    '%s lands nowhere raw: escaped in an output and the log, folded in the summary and the comment',
    (_name, ch) => {
      const text = `job${ch}1`;
      expect(hasUnsafe(text)).toBe(true);
      for (const shown of [escapeUnsafe(text), quote(text), label(text), cell(text), inert(text)]) {
        expect(shown).not.toContain(ch);
      }
      expect(escapeUnsafe(text)).toBe(`job\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}1`);
    },
  );

  it('leaves other text alone', () => {
    expect(hasUnsafe('job_1 · émoji 🎉 日本')).toBe(false);
    expect(escapeUnsafe('job_1 · émoji 🎉')).toBe('job_1 · émoji 🎉');
  });
});

describe('preformatted', () => {
  it('keeps the lines, and nothing in them can close the block, render or steer the terminal', () => {
    const text = 'line one\r\n\n</pre><img src=x onerror=alert(1)>\n\u001b[31mred\u202e\tend';
    expect(preformatted(text)).toBe(
      '<pre>line one\n\n&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;\n\\u001b[31mred\\u202e\tend</pre>',
    );
    expect(preformatted('x'.repeat(20), 5)).toBe('<pre>xxxxx…</pre>');
  });
});

describe('label', () => {
  it('prints plain ids as they are and quotes anything else', () => {
    expect(label('job_123-abc.4')).toBe('job_123-abc.4');
    expect(label('::error::x')).toBe('"::error::x"');
    expect(label('a b')).toBe('"a b"');
  });
});

describe('describeThrown', () => {
  it('describes values that are not errors', () => {
    expect(describeThrown(new Error('boom.'))).toBe('boom');
    expect(describeThrown('text')).toBe('text');
    expect(describeThrown({ a: 1 })).toBe('{"a":1}');
    expect(describeThrown(undefined)).toBe('undefined');
    expect(describeThrown(null)).toBe('null');
  });
});
