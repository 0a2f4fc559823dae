// The viewer's drawing of a world game's state (a board, each side's cards, the offers on the table), from the scene
// the game's renderer made after the turn (event.scene of a turn's end). Kept apart from viewer.js: one function in,
// one element out.

/** @typedef {import('../../core/world/world.ts').WorldScene} WorldScene */
/** @typedef {import('../../core/world/world-match.ts').WorldTurnNote} WorldTurnNote */

/**
 * @param {keyof HTMLElementTagNameMap} tag
 * @param {string} [className]
 * @param {string} [text]
 */
const make = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/**
 * The scene as an element: the move and whether it was legal, the grid, the hands, the table, the caption.
 * @param {WorldScene} scene
 * @param {WorldTurnNote} [world]
 */
export function renderScene(scene, world) {
  const box = make('div', 'world-scene');
  if (world) box.append(make('div', `world-move ${world.verdict}`, world.verdict === 'legal' ? `move ${world.move}` : `${world.verdict} move${world.why ? `: ${world.why}` : ''}`));
  if (Array.isArray(scene.grid)) {
    const grid = make('table', 'world-grid');
    for (const row of scene.grid) {
      const tr = make('tr');
      for (const cell of row) tr.append(make('td', '', String(cell)));
      grid.append(tr);
    }
    box.append(grid);
  }
  if (scene.hands) {
    const hands = make('div', 'world-hands');
    for (const [player, cards] of Object.entries(scene.hands)) hands.append(make('div', 'world-hand', `${player}: ${cards.join(' ')}`));
    box.append(hands);
  }
  for (const line of scene.table ?? []) box.append(make('div', 'world-table', line));
  if (scene.caption) box.append(make('div', 'world-caption', scene.caption));
  return box;
}
