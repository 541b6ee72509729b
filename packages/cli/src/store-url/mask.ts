/**
 * The one place URLs are made safe to show. Everything that prints or reports a store URL goes through
 * `maskUrl`.
 */

// scheme://userinfo@ anywhere (an S3 endpoint in the query is a URL too), greedy up to the last "@" of
// the authority, so an unencoded "@" in a password is masked too.
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/gi;

/**
 * The URL with its password replaced by `***` (`redis://user:***@host`); a user part without a colon may
 * be a token, so it is masked whole.
 *
 * @example
 * ```ts
 * maskUrl("encrypted+redis://app:hunter2@cache:6379/notes"); // "encrypted+redis://app:***@cache:6379/notes"
 * ```
 */
export const maskUrl = (url: string): string =>
  url.replace(USERINFO, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(":");
    return `${scheme}${colon < 0 ? "***" : `${userinfo.slice(0, colon)}:***`}@`;
  });
