/** Where the page keeps the viewer's token: this tab's sessionStorage, which belongs to this origin (scheme, host and port) alone. */
const KEY = "stepwise-viewer-token";

let token: string | null = null;

/**
 * Takes the token from the address (`?token=`) into the tab, and takes it out of the address, so it
 * stays out of history and screenshots; a reload finds it in the tab again. Not a cookie: browsers
 * send a host's cookies to every port of it, so another server on this machine would receive it.
 */
export function takeToken(): void {
  const given = new URLSearchParams(location.search).get("token");
  try {
    if (given !== null) sessionStorage.setItem(KEY, given);
    token = given ?? sessionStorage.getItem(KEY);
  } catch {
    // No storage here (a sandbox): the token lasts as long as the page.
    token = given;
  }
  if (given !== null) history.replaceState(null, "", location.pathname + location.hash);
}

/** Headers that bring the token with a request, when the viewer has one. */
export function tokenHeaders(): Record<string, string> {
  return token === null ? {} : { authorization: "Bearer " + token };
}

/** `url` with the token as `?token=`, for what cannot send headers (EventSource). */
export function withToken(url: string): string {
  return token === null ? url : url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
}
