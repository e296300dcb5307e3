import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, HostNeedsTokenError, isLoopback, loopbackHostCheck, tokenCheck } from "../integrations/http-access.js";

/** Where earlier versions kept the token: a cookie, which the browser also sends to every other port of the host. */
const OLD_COOKIE = "stepwise_ui_token";

/** Why a request may not see the viewer: the HTTP status and a reason. */
export type AccessRefusal = { status: 401 | 403; message: string };

/** Decides who may use the viewer; `refusal` returns undefined for a request that may go on. */
export type ViewerAccess = { refusal(req: IncomingMessage, res: ServerResponse): AccessRefusal | undefined };

/** The page's shell, module and stylesheet: the package's own files, with nothing of any run in them. */
function isPageFile(req: IncomingMessage, path: string): boolean {
  return req.method === "GET" && (path === "/" || path === "/favicon.ico" || path.startsWith("/assets/"));
}

/**
 * The viewer shows runs and takes decisions that let calls run, so: on loopback it answers only to
 * its own loopback names (DNS rebinding); anywhere else it needs a token, which every request for
 * runs brings as `Authorization: Bearer <token>` (or `?token=`). The page's own files need none: the
 * page takes the token from `?token=` once and keeps it in the tab's sessionStorage, which belongs to
 * this origin alone (scheme, host and port). A cookie would not: browsers send a host's cookies to
 * every port of it, so another local server would receive the token.
 */
export function viewerAccess(host: string, token: string | undefined): ViewerAccess {
  const loopback = isLoopback(host);
  if (!loopback && !token) {
    throw new HostNeedsTokenError(
      `refusing to serve the viewer on ${host} without a token: anyone who can reach it could read the runs and approve calls. ` +
        "Pass a token (stepwise ui --token, or STEPWISE_UI_TOKEN), or bind to 127.0.0.1.",
    );
  }
  const tokenMatches = token ? tokenCheck(token) : undefined;
  return {
    refusal(req, res) {
      if (loopback && !loopbackHostCheck(req.socket.localPort ?? 0)(req.headers.host)) {
        return { status: 403, message: "the viewer only answers to its own loopback address" };
      }
      // A browser that still holds the old cookie stops sending it, here and to every other port.
      if (cookie(req, OLD_COOKIE) !== undefined) res.setHeader("set-cookie", `${OLD_COOKIE}=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/`);
      if (token === undefined || tokenMatches === undefined) return undefined;
      const url = new URL(req.url ?? "/", "http://viewer");
      if (isPageFile(req, url.pathname)) return undefined;
      if (tokenMatches(bearerToken(req.headers.authorization)) || tokenMatches(url.searchParams.get("token") ?? undefined)) return undefined;
      res.setHeader("www-authenticate", 'Bearer realm="stepwise viewer"');
      return { status: 401, message: "this viewer needs its token: open it once with ?token=<token>, or send Authorization: Bearer <token>" };
    },
  };
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}
