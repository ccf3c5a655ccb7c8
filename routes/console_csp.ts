/**
 * The Content-Security-Policy of the console page and its static files (docs/architecture.md,
 * "Console"). Apart from the page (`./console_page.tsx`), which the service imports at the first
 * `GET /console` only, so that the routes can send it without loading the page's islands.
 * @module
 */

/** The Content-Security-Policy of the console page, exactly as in docs/architecture.md, "Console". */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";
