// The version the User-Agent sends, read from package.json when the bundle is built: the release
// script sets it there, in one place.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
