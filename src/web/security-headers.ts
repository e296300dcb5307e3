import type { ServerResponse } from "node:http";

/**
 * What the page may load and who may embed it, sent with every response. No page may frame the viewer
 * (a framed, invisible viewer under a decoy button is how a click approves a call unseen); the page
 * runs only its own module and stylesheet and talks only to its own origin; other sites cannot load
 * its responses as scripts or images, or keep a handle on a window that shows it.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

export function sendSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}
