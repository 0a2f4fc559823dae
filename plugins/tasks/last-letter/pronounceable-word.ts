import type { Rng } from '../../../core/rng.ts';

const VOWELS = 'aeiou';
const CONSONANTS = 'bcdfghjklmnprstvwxyz';

/** A made-up lowercase word: never more than two vowels or two consonants in a row. */
export function pronounceableWord(rng: Rng, length: number): string {
  let word = '';
  let vowelRun = 0;
  let consonantRun = 0;
  for (let i = 0; i < length; i++) {
    const vowel = vowelRun === 2 ? false : consonantRun === 2 ? true : consonantRun > 0 ? rng.bernoulli(0.8) : rng.bernoulli(vowelRun > 0 ? 0.15 : 0.4);
    const pool = vowel ? VOWELS : CONSONANTS;
    word += pool[rng.int(pool.length)];
    vowelRun = vowel ? vowelRun + 1 : 0;
    consonantRun = vowel ? 0 : consonantRun + 1;
  }
  return word;
}

export function randomLetter(rng: Rng, except: string): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz'.replace(except, '');
  return letters[rng.int(letters.length)];
}
