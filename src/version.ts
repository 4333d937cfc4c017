/** Sent in the User-Agent; a test keeps it equal to package.json's version. */
export const VERSION = '1.0.0';
