/**
 * The site's icon, one small SVG served at /favicon.svg and /favicon.ico: every page names it with
 * `<link rel="icon">`, and a browser that asks for /favicon.ico anyway (a non-HTML answer, an old client)
 * gets it too, so no page request ends in a 404. SVG, not ICO: a few hundred bytes of text, no binary to keep.
 */
export const FAVICON_PATHS: readonly string[] = ['/favicon.svg', '/favicon.ico'];

/** A photo frame with a mountain and a sun, in the site's link blue. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect x="2" y="5" width="28" height="22" rx="3" fill="#1a5fb4"/>
<rect x="5" y="8" width="22" height="16" fill="#fff"/>
<path d="M5 24l7-9 5 6 3-3 7 6z" fill="#1a5fb4"/>
<circle cx="22" cy="12.5" r="2.5" fill="#e5a50a"/>
</svg>
`;
