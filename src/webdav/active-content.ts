// User files must never run on the service's origin, which also serves the admin page and the admin APIs: an
// uploaded SVG with an onload handler, opened from /dav/, would otherwise act with an admin's credentials.
// Two layers: every /dav/ answer is a sandboxed document (a unique opaque origin, no scripts, no plugins, no
// forms, nothing loaded) that the browser must not re-type; and the types a browser would execute or render as a
// document are downloads, not pages.

/** On every answer under /dav/, errors included (the router attaches them to the whole path space). */
export const DAV_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  // `sandbox` without tokens: every restriction; `default-src 'none'`: a rendered file loads nothing else either.
  'content-security-policy': "sandbox; default-src 'none'",
  'x-content-type-options': 'nosniff',
};

/**
 * Media types (as src/webdav/mime.ts assigns them) that a browser runs scripts in or renders as a document
 * that can: HTML and XHTML, SVG, XML (an xml-stylesheet instruction turns it into HTML through XSLT), XSLT itself,
 * JavaScript, and MHTML archives. Anything else is shown inline (images, PDF, text) or downloaded already
 * (application/octet-stream for unknown extensions).
 */
const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'application/xml',
  'text/xml',
  'application/xslt+xml',
  'text/javascript',
  'multipart/related',
]);

export function isActiveContent(contentType: string): boolean {
  return ACTIVE_TYPES.has(contentType.split(';', 1)[0]!.trim().toLowerCase());
}

/**
 * `Content-Disposition: attachment` with the file's name (RFC 6266): `filename` is a quoted ASCII fallback
 * (anything else, quotes, backslashes and percent signs become `_`), and `filename*` (RFC 8187, UTF-8) carries
 * the exact name when the fallback differs from it.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  if (fallback === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** RFC 8187 value-chars: attr-char as it is, every other UTF-8 byte as %XX. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
