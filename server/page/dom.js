// Small DOM helpers shared by the page's modules.

/**
 * The page's element of this id; one that index.html lacks is a defect of the page, said at once.
 * @param {string} id
 * @returns {HTMLElement}
 */
export const $ = (id) => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the viewer page has no element #${id}`);
  return node;
};

/**
 * A form control of the page (`<input>` or `<select>`) by id.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export const $input = (id) => {
  const node = $(id);
  if (!(node instanceof HTMLInputElement)) throw new Error(`#${id} is not an <input>`);
  return node;
};

/**
 * @param {string} id
 * @returns {HTMLSelectElement}
 */
export const $select = (id) => {
  const node = $(id);
  if (!(node instanceof HTMLSelectElement)) throw new Error(`#${id} is not a <select>`);
  return node;
};

/** @type {(run: string, matchId: string) => string} */
export const keyOf = (run, matchId) => `${run}\u0000${matchId}`;

/**
 * A new element with properties set and, when given, its text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Partial<HTMLElementTagNameMap[K]>} [props]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export const el = (tag, props = {}, text) => {
  const node = Object.assign(document.createElement(tag), props);
  if (text !== undefined) node.textContent = text;
  return node;
};

/** @type {(value: number) => string} */
export const round = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

/**
 * A match's address in the page's URL: `#<run>/<matchId>`, each part URI-encoded (match ids hold slashes).
 * @type {(run: string, matchId: string) => string}
 */
export const matchHash = (run, matchId) => `#${encodeURIComponent(run)}/${encodeURIComponent(matchId)}`;

/**
 * The match a URL's hash names, or null.
 * @param {string} hash
 * @returns {{ run: string, matchId: string } | null}
 */
export function parseMatchHash(hash) {
  const [run, matchId, ...rest] = hash.replace(/^#/, '').split('/');
  if (!run || !matchId || rest.length > 0) return null;
  try {
    return { run: decodeURIComponent(run), matchId: decodeURIComponent(matchId) };
  } catch {
    return null;
  }
}

/**
 * Which copy of its problem a match is (the last part of its id: matches of one group differ there), in words.
 * @param {string} matchId
 */
export function copyOf(matchId) {
  const copy = matchId.slice(matchId.lastIndexOf('/') + 1);
  return /^\d+$/.test(copy) ? `copy ${Number(copy) + 1}` : '';
}

/**
 * Who sits where, where that says more than the role's name (a tournament's entrants, a pool's opponents): `role
 * policy` for every seat whose policy is not named after its role; '' when every one is.
 * @param {Readonly<Record<string, string>>} seats
 */
export function entrantsOf(seats) {
  const named = Object.entries(seats ?? {}).filter(([role, policy]) => policy !== role);
  return named.map(([role, policy]) => `${role} ${policy}`).join(' · ');
}
