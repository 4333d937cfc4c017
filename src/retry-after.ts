/** A `Retry-After: 0` (or a date gone by) would otherwise turn waiting into a burst of requests. */
const MIN_RETRY_AFTER_MS = 1000;

/**
 * `Retry-After` in milliseconds from `now`, at least 1 s: either delta-seconds or an HTTP date (RFC 9110
 * §10.2.3). `undefined` when absent or unreadable, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.max(MIN_RETRY_AFTER_MS, Number(text) * 1000);
  // HTTP dates start with a day name; Date.parse alone would read "-3" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(MIN_RETRY_AFTER_MS, date - now);
}
