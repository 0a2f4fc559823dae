export function lastLetterQuestion(words: readonly string[]): string {
  return `Take the last letters of the words in "${words.join(' ')}" and concatenate them.`;
}

export function wordStep(word: string, letter: string, soFar: string): string {
  return `The word "${word}" ends with "${letter}", so the letters so far are "${soFar}".`;
}

/** One step per word, each appending that word's last letter to the running string. */
export function goldWordSteps(words: readonly string[]): string[] {
  let soFar = '';
  return words.map((word) => {
    const letter = word[word.length - 1];
    soFar += letter;
    return wordStep(word, letter, soFar);
  });
}

export function goldAnswer(words: readonly string[]): string {
  return words.map((word) => word[word.length - 1]).join('');
}
