// Whether a rebuilt file of dist/ is the committed one with the version alone changed: the
// release script's proof that the committed dist/ was the build of its source, from the one build
// a release needs anyway (the version is inlined where the User-Agent reads it).

/**
 * True when `after` is `before` with one `"oldVersion"` literal replaced by `"newVersion"`, or
 * equal to it. Anything else (a change anywhere but at the version) is false.
 */
export function differsOnlyByVersion(before, after, oldVersion, newVersion) {
  if (before === after) return true;
  const was = JSON.stringify(oldVersion);
  const now = JSON.stringify(newVersion);
  for (let at = after.indexOf(now); at !== -1; at = after.indexOf(now, at + 1)) {
    if (
      before.startsWith(was, at) &&
      before.slice(0, at) === after.slice(0, at) &&
      before.slice(at + was.length) === after.slice(at + now.length)
    )
      return true;
  }
  return false;
}
