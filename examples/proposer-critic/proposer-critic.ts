import { defineGame } from '../../core/game/define-game.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import { Rotations } from '../../core/game/rotations.ts';
import type { SequentialProtocol } from '../../core/protocols/sequential.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { STEP_SEPARATOR } from '../../plugins/tasks/prompt.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { workingOf } from './withheld-answer.ts';

type Role = 'proposer' | 'critic';

const TURN_TOKENS = 224;

/**
 * The proposer drafts a solution; the critic reads the draft's working, but not its answer, and re-derives the
 * answer on its own. Each is paid for its own correct boxed answer; the critic is the one trained.
 */
const protocol: SequentialProtocol<Role, Problem> = {
  family: 'sequential',
  name: 'draft-then-check',
  turns: [
    { role: 'proposer', template: (_, problem) => problem.prompt, maxTokens: TURN_TOKENS },
    {
      role: 'critic',
      template: ([draft], problem) => `${problem.prompt}${draft.text}${STEP_SEPARATOR}`,
      maxTokens: TURN_TOKENS,
    },
  ],
};

/** While the match runs, only the proposer sees its own answer; everyone else reads its working. */
function withholdDraftAnswer(state: MatchState<Role, Problem>, viewer: Role | null): MatchState<Role, Problem> {
  if (state.finished || viewer === 'proposer') return state;
  return { ...state, transcript: state.transcript.map((turn) => (turn.role === 'proposer' ? { ...turn, text: workingOf(turn.text), tokens: [] } : turn)) };
}

export const proposerCritic = defineGame<Role, Problem>({
  id: 'proposer-critic',
  roles: ['proposer', 'critic'],
  protocol,
  rewards: ({ problem, transcript }) => ({
    outcome: {
      proposer: gradeMath(problem.answer, transcript[0]?.text ?? '').correct ? 1 : 0,
      critic: gradeMath(problem.answer, transcript[1]?.text ?? '').correct ? 1 : 0,
    },
  }),
  rotation: Rotations.fixed(['proposer', 'critic'], ['critic']),
  trainable: ['critic'],
  view: withholdDraftAnswer,
});
