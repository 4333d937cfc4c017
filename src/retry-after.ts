/**
 * `Retry-After` in milliseconds from `now`: either delta-seconds or an HTTP date (RFC 9110
 * §10.2.3). `undefined` when absent or unreadable, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates start with a day name; Date.parse alone would read "-3" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
