export function lastLetterQuestion(words: readonly string[]): string {
  return `Take the last letters of the words in "${words.join(' ')}" and concatenate them.`;
}

/**
 * The step for word `k`: it quotes that word with the one before it exactly as they stand in the prompt, then the word,
 * its last letter and the running string. The pair is ours: the word is found by continuing the prompt's own text from
 * where the previous word ended, the lookup a small model learns first (see docs/default-base.md).
 */
export function wordStep(words: readonly string[], k: number, letter: string, soFar: string): string {
  const word = words[k];
  const pair = k === 0 ? word : `${words[k - 1]} ${word}`;
  return `In "${pair}", the word "${word}" ends with "${letter}", so the letters so far are "${soFar}".`;
}

/** One step per word, each appending that word's last letter to the running string. */
export function goldWordSteps(words: readonly string[]): string[] {
  let soFar = '';
  return words.map((word, k) => {
    const letter = word[word.length - 1];
    soFar += letter;
    return wordStep(words, k, letter, soFar);
  });
}

export function goldAnswer(words: readonly string[]): string {
  return words.map((word) => word[word.length - 1]).join('');
}
