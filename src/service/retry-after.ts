/**
 * The longest wait a reply may set. The service's quota is hourly, so no honest reply asks for
 * more than an hour or so; a day leaves room for a gateway's own limits. Anything longer (years,
 * a far-future date, a number that overflows) is a broken header, not a plan.
 */
export const MAX_STATED_WAIT_MS = 24 * 3_600_000;

/**
 * A wait a reply states, in milliseconds from now, when it is one worth honouring: in the future
 * and at most a day away. `0`, a time gone by, a negative, NaN, Infinity or an absurd length is
 * no wait at all: the caller backs off as for a reply that gave none. Honouring `0` or a past
 * date would turn waiting into a burst of requests.
 */
export function sensibleWait(ms: number | undefined): number | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 && ms <= MAX_STATED_WAIT_MS
    ? Math.ceil(ms)
    : undefined;
}

/**
 * `Retry-After` in milliseconds from `now`, when it states a sensible wait (see `sensibleWait`):
 * either delta-seconds or an HTTP date (RFC 9110 §10.2.3). `undefined` when absent, unreadable or
 * not sensible, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return sensibleWait(Number(text) * 1000);
  // HTTP dates start with a day name; Date.parse alone would read "-3" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  return sensibleWait(Date.parse(text) - now);
}
