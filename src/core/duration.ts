/**
 * Durations as workflow authors write them: `90s`, `30m`, `1h`, `1h30m`, or a bare number of
 * seconds. Whole units only: `1.5h` is ambiguous to a reader, `1h30m` is not.
 */
const WITH_UNITS = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const BARE_SECONDS = /^\d+$/;

export const DURATION_FORMS = 'a number with a unit such as 90s, 30m, 1h or 1h30m, or a number of seconds';

/** Milliseconds, or `undefined` when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (BARE_SECONDS.test(value)) return Number(value) * 1000;
  const match = WITH_UNITS.exec(value);
  if (!match || value === '') return undefined;
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

/** `1h 2m 3s` style, whole seconds (sub-second waits read as `0s`). */
export function formatDuration(ms: number): string {
  let seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const parts: string[] = [];
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  if (seconds || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join(' ');
}
