// Small DOM helpers shared by the page's modules.
export const $ = (id) => document.getElementById(id);

export const keyOf = (run, matchId) => `${run}\u0000${matchId}`;

export const el = (tag, props = {}, text) => {
  const node = Object.assign(document.createElement(tag), props);
  if (text !== undefined) node.textContent = text;
  return node;
};

export const round = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

/** A match's address in the page's URL: `#<run>/<matchId>`, each part URI-encoded (match ids hold slashes). */
export const matchHash = (run, matchId) => `#${encodeURIComponent(run)}/${encodeURIComponent(matchId)}`;

/** The match a URL's hash names, or null. */
export function parseMatchHash(hash) {
  const [run, matchId, ...rest] = hash.replace(/^#/, '').split('/');
  if (!run || !matchId || rest.length > 0) return null;
  try {
    return { run: decodeURIComponent(run), matchId: decodeURIComponent(matchId) };
  } catch {
    return null;
  }
}
