/**
 * A two-role sequential game in one plugin module: the proposer drafts a solution; the critic reads the draft's
 * working, but not its answer, and finishes the solution its own way. Each is paid for its own correct boxed answer.
 * Two policies, alice and bob, both trained, swap roles after every optimizer step.
 *
 *   npx ludus train proposer-critic --plugin examples/proposer-critic/proposer-critic.ts --steps 4 --no-watch
 */
import { defineGame, definePlugin, GRADER_JUDGE, Rotations, STEP_SEPARATOR, type Grader, type MatchState, type Problem, type SequentialProtocol } from '../../index.ts';

type Role = 'proposer' | 'critic';

const TURN_TOKENS = 160;

/** A draft's working without its answer: every step before the first one that boxes an answer. */
export function workingOf(draft: string): string {
  const steps = draft.split(STEP_SEPARATOR);
  const answerStep = steps.findIndex((step) => step.includes('\\boxed'));
  return (answerStep < 0 ? steps : steps.slice(0, answerStep)).join(STEP_SEPARATOR);
}

const protocol: SequentialProtocol<Role, Problem> = {
  family: 'sequential',
  name: 'draft-then-finish',
  turns: [
    { role: 'proposer', template: (_, problem) => problem.prompt, maxTokens: TURN_TOKENS },
    { role: 'critic', template: ([draft], problem) => `${problem.prompt}${draft.text}${STEP_SEPARATOR}`, maxTokens: TURN_TOKENS },
  ],
};

/** While the match runs, the critic reads the draft's working only; the proposer and spectators see it whole. */
function withholdDraftAnswer(state: MatchState<Role, Problem>, viewer: Role | null): MatchState<Role, Problem> {
  if (state.finished || viewer !== 'critic') return state;
  return { ...state, transcript: state.transcript.map((turn) => (turn.role === 'proposer' ? { ...turn, text: workingOf(turn.text), tokens: [] } : turn)) };
}

export function proposerCritic(grade: Grader) {
  return defineGame<Role, Problem>({
    id: 'proposer-critic',
    roles: ['proposer', 'critic'],
    policies: ['alice', 'bob'],
    protocol,
    rewards: ({ problem, transcript }) => {
      const verdicts = transcript.map((turn) => ({ role: turn.role, judge: GRADER_JUDGE, turn: turn.turn, ...grade(problem.answer, turn.text) }));
      const paid = (role: Role) => (verdicts.find((v) => v.role === role)?.correct ? 1 : 0);
      return { outcome: { proposer: paid('proposer'), critic: paid('critic') }, verdicts };
    },
    rotation: Rotations.alternateEveryStep<Role>(['proposer', 'critic'], ['alice', 'bob']),
    trainable: ['proposer', 'critic'],
    view: withholdDraftAnswer,
    validateOn: 'critic',
  });
}

export default definePlugin({
  name: 'proposer-critic',
  ludus: '^0.1.0',
  games: [{ name: 'proposer-critic', create: ({ grader }) => proposerCritic(grader) }],
});
