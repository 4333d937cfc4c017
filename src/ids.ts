import { monotonicFactory } from 'ulidx';

// Monotonic so ids made in the same millisecond still sort in creation order; the jobs list
// and the queue both order by id.
const ulid = monotonicFactory();

export type IdPrefix = 'prj' | 'key' | 'job' | 'run' | 'msg' | 'wrk' | 'pr';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

const ID_SHAPE = /^(prj|key|job|run|msg|wrk|pr)_[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` could be an id with this prefix; lets handlers answer 404 without a query. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_SHAPE.test(value);
}
