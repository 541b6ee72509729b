/**
 * The one place URLs are made safe to show. Everything that prints or reports a store URL goes through
 * `maskUrl`.
 */

const SCHEME = /[a-z][a-z0-9+.-]*:\/\//gi;

/** Query parameters whose values are shown; every other value could be a credential and is masked. */
const SHOWN_PARAMETERS = new Set(["tenant", "history", "endpoint", "region", "forcePathStyle", "sslmode"]);

// A query: from "?" to whitespace or a quote (messages quote URLs).
const QUERY = /\?([^\s"]*)/g;

/**
 * The URL with its password replaced by `***` (`redis://user:***@host`), and the values of query
 * parameters that could be credentials (`?password=`, `?token=`...) too. A password holding unencoded
 * `/`, `?`, `#` or `@` is masked whole: everything from `scheme://` to the last `@` before the next URL
 * counts as user information (up to whitespace). A user part without a colon may be a token, so it is masked whole.
 *
 * @example
 * ```ts
 * maskUrl("encrypted+redis://app:hunter2@cache:6379/notes"); // "encrypted+redis://app:***@cache:6379/notes"
 * maskUrl("redis://app:a/b#c@cache/notes");                  // "redis://app:***@cache/notes"
 * ```
 */
export const maskUrl = (text: string): string => {
  const starts = [...text.matchAll(SCHEME)].map((m) => ({ at: m.index, length: m[0].length }));
  if (starts.length === 0) return maskParameters(text);
  let out = text.slice(0, starts[0]!.at);
  starts.forEach(({ at, length }, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.at : text.length;
    const scheme = text.slice(at, at + length);
    const rest = text.slice(at + length, end);
    // The URL ends at whitespace (a password holding a space is masked only up to it).
    const space = rest.search(/\s/);
    const lastAt = rest.slice(0, space < 0 ? rest.length : space).lastIndexOf("@");
    if (lastAt < 0) {
      out += scheme + maskParameters(rest);
      return;
    }
    const userinfo = rest.slice(0, lastAt);
    const colon = userinfo.indexOf(":");
    const user = colon < 0 ? "" : userinfo.slice(0, colon);
    const shownUser = colon < 0 || /[/?#\s"]/.test(user) ? "***" : `${user}:***`;
    // An "@" inside a masked query value ("?password=a@b"): what follows it is that value too.
    const query = userinfo.indexOf("?");
    const inValue = query >= 0 && /=\*\*\*$/.test(maskParameters(userinfo.slice(query)));
    const after = rest.slice(lastAt + 1);
    out += `${scheme}${shownUser}@${inValue ? after.replace(/^[^\s"]*/, "***") : maskParameters(after)}`;
  });
  return out;
};

/**
 * Query parameters are shown while they are known to be harmless (`tenant`, `region`...); from the first
 * other one on, the rest of the query is masked: a value may hold a credential, and a password holding
 * "&" or "#" would otherwise spill into the next parameter's name.
 */
const maskParameters = (text: string): string =>
  text.replace(QUERY, (_all, query: string) => {
    const shown: string[] = [];
    for (const parameter of query.split("&")) {
      const name = parameter.split("=", 1)[0]!;
      // A flag without a value ends a sentence too ("...?history."): its name is what is checked.
      const flag = parameter.includes("=") ? name : name.replace(/[.,;:)]+$/, "");
      if (SHOWN_PARAMETERS.has(flag) && !parameter.includes("#")) {
        shown.push(parameter);
        continue;
      }
      shown.push(/^[A-Za-z_][A-Za-z0-9_.-]{0,31}=/.test(parameter) ? `${name}=***` : "***");
      break;
    }
    return `?${shown.join("&")}`;
  });
