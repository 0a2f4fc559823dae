import { fail } from '../../../core/errors.ts';
import { boxedAnswerStep, joinSteps, questionPrompt, STEP_BY_STEP_INSTRUCTION } from '../prompt.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { lastBoxed } from './last-boxed.ts';

export interface RowPlace {
  file: string;
  line: number;
}

type Row = Record<string, unknown>;

const SHAPES = '{problem, answer}, {problem, solution} or {question, answer}';
/** GSM8K marks calculator results as <<48/2=24>>. */
const CALCULATOR_ANNOTATION = /<<[^>]*>>/g;

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim().length > 0;
const isAnswer = (value: unknown): value is string | number => isText(value) || (typeof value === 'number' && Number.isFinite(value));

function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0);
}

/** The given steps, ending in the boxed answer: appended when the last step does not box it already. */
function withBoxedAnswer(steps: string[], answer: string): string[] {
  const last = steps[steps.length - 1];
  return last !== undefined && lastBoxed(last) !== undefined ? steps : [...steps, boxedAnswerStep(answer)];
}

interface Worked {
  question: string;
  answer: string;
  steps: string[];
  used: string[];
}

function fromProblem(row: Row, place: RowPlace): Worked {
  const question = row.problem as string;
  const solution = isText(row.solution) ? row.solution : undefined;
  const answer = isAnswer(row.answer) ? String(row.answer).trim() : solution === undefined ? undefined : lastBoxed(solution)?.trim();
  if (!answer) {
    const why = solution === undefined ? `needs a non-empty "answer" or "solution" (${SHAPES})` : 'has a "solution" with no \\boxed{} answer and no "answer"';
    fail('DATA_INVALID', `${place.file}:${place.line}: the row ${why}`, { ...place });
  }
  return { question, answer: answer!, steps: withBoxedAnswer(solution ? paragraphs(solution) : [], answer!), used: ['problem', 'answer', 'solution'] };
}

/** GSM8K: the rationale's lines, then "#### final answer". */
function fromQuestion(row: Row, place: RowPlace): Worked {
  const text = String(row.answer);
  const marker = text.lastIndexOf('####');
  const answer = (marker < 0 ? text : text.slice(marker + 4)).trim();
  if (!answer) fail('DATA_INVALID', `${place.file}:${place.line}: the "answer" has nothing after "####"`, { ...place });
  const rationale = marker < 0 ? '' : text.slice(0, marker).replace(CALCULATOR_ANNOTATION, '');
  const steps = rationale
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return { question: row.question as string, answer, steps: withBoxedAnswer(steps, answer), used: ['question', 'answer'] };
}

/** One JSONL row in a usual math-set shape, as a Problem; the other fields of the row go to meta. */
export function rowProblem(row: unknown, place: RowPlace, taskName: string): Problem {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    return fail('DATA_INVALID', `${place.file}:${place.line}: a row must be a JSON object (${SHAPES})`, { ...place });
  }
  const fields = row as Row;
  let worked: Worked;
  if (isText(fields.problem)) worked = fromProblem(fields, place);
  else if (isText(fields.question) && isAnswer(fields.answer)) worked = fromQuestion(fields, place);
  else return fail('DATA_INVALID', `${place.file}:${place.line}: the row has none of the shapes ${SHAPES}`, { ...place, fields: Object.keys(fields) });
  const id = [fields.id, fields.unique_id].find((value) => isText(value) || typeof value === 'number');
  const rest = Object.fromEntries(Object.entries(fields).filter(([key]) => !worked.used.includes(key)));
  return {
    id: id === undefined ? `${taskName}/${place.line}` : String(id),
    question: worked.question,
    instruction: STEP_BY_STEP_INSTRUCTION,
    prompt: questionPrompt(worked.question, STEP_BY_STEP_INSTRUCTION),
    answer: worked.answer,
    solution: joinSteps(worked.steps),
    steps: worked.steps,
    meta: { ...rest, file: place.file, line: place.line },
  };
}
