import { createHash, timingSafeEqual } from "node:crypto";

/** A server asked to listen beyond loopback without a token: a setting to fix, refused before it listens. */
export class HostNeedsTokenError extends Error {
  override name = "HostNeedsTokenError";
}

/** Addresses only this machine can reach: serving on them needs no token. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The Host headers a loopback server answers to. A page on another site can point its own DNS name
 * at 127.0.0.1 (DNS rebinding) and reach the server as same-origin, but its requests still carry
 * that name in Host, so anything but our own loopback names is refused.
 */
export function loopbackHostCheck(port: number): (hostHeader: string | undefined) => boolean {
  const names = ["127.0.0.1", "localhost", "[::1]"];
  // Browsers leave the default port out of Host.
  const allowed = new Set([...names.map((name) => `${name}:${port}`), ...(port === 80 ? names : [])]);
  return (hostHeader) => hostHeader !== undefined && allowed.has(hostHeader.toLowerCase());
}

/** Compares digests so neither the token's length nor its prefix leaks through timing. */
export function tokenCheck(token: string): (candidate: string | undefined) => boolean {
  const expected = createHash("sha256").update(token).digest();
  return (candidate) => candidate !== undefined && candidate !== "" && timingSafeEqual(createHash("sha256").update(candidate).digest(), expected);
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer (.+)$/i.exec(authorization ?? "")?.[1];
}

/**
 * The Origin check MCP's Streamable HTTP transport asks servers to make: a browser names the page
 * that sent a request in `Origin`, so a request from a page not listed is refused (a page on another
 * site must not drive tools on this machine). Clients that are not browsers send no Origin and pass.
 * The SDK's own `allowedOrigins` transport option is deprecated in favour of a check in front of the
 * transport, which also refuses before any session is opened.
 */
export function originCheck(allowedOrigins: readonly string[]): (originHeader: string | undefined) => boolean {
  const allowed = new Set(
    allowedOrigins.map((origin) => {
      const normal = normalOrigin(origin);
      if (normal === undefined) throw new Error(`allowedOrigins: "${origin.slice(0, 100)}" is not an origin; write it like https://app.example.com`);
      return normal;
    }),
  );
  return (originHeader) => {
    if (originHeader === undefined) return true;
    const normal = normalOrigin(originHeader);
    return normal !== undefined && allowed.has(normal);
  };
}

/** Scheme, host and port as a browser writes them (`URL.origin`); undefined for anything else. */
function normalOrigin(origin: string): string | undefined {
  try {
    const { origin: normal } = new URL(origin);
    return normal === "null" ? undefined : normal;
  } catch {
    return undefined;
  }
}
