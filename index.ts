/**
 * ludus's public API: what `import { … } from 'ludus'` gives a user project. Games and their pieces (core and
 * plugins), plugin modules, the match engine and the trainer.
 */
export { defineGame, type Game, type GameDefinition, type LossTerms } from './core/game/define-game.ts';
export { DEFAULT_HEADLINE, type Headline } from './core/game/headline.ts';
export { Rotations, updatesOf, type Rotation, type RotationStep } from './core/game/rotations.ts';
export type { MatchState } from './core/game/match-state.ts';
export type { MatchRewards, MatchVerdict, RewardRule } from './core/game/rewards.ts';
export { ownSecretsOnly, revealAll, secretsUntilFinished, type View } from './core/game/view.ts';
export { CoDecoding, WORD_HANDOFF_DEFAULTS, type CoDecodingProtocol, type ShareBand } from './core/protocols/co-decoding.ts';
export type { SequentialProtocol, TurnSpec } from './core/protocols/sequential.ts';
export { TurnOrder } from './core/protocols/turn-order.ts';
export type { Protocol } from './core/protocols/protocol.ts';
export type { WorldProtocol } from './core/protocols/world.ts';
export { oracle, SPIRAL_FORFEIT, type AnyWorld, type ChanceOutcome, type IllegalMovePolicy, type MoveRewards, type OraclePlayer, type ParsedMove, type PlayerView, type ScriptedPlayer, type Utility, type World, type WorldScene } from './core/world/world.ts';
export { firstLegalMove, informationStateOf, moveIdOf } from './core/world/world-moves.ts';
export { gameTree, TREE_NODE_LIMIT, type GameTree, type InformationSet, type TreeNode } from './core/world/game-tree.ts';
export { bestResponse, exploitability, policyValues, uniformPolicy, type PolicyTable } from './core/world/exploitability.ts';
export { cfrPolicy } from './core/world/cfr.ts';
export { equilibriumPlayer, policyPlayer } from './core/world/policy-player.ts';
export { worldGame, WorldKnobsSchema, WORLD_RUN_DEFAULTS, type WorldKnobs } from './core/world/world-game.ts';
export { randomLegal } from './core/world/random-legal.ts';
export { playScriptedMatch, replayWorld, startWorld, worldPayoffs, worldPrompt, type WorldMatch, type WorldTurnNote } from './core/world/world-match.ts';
export { rae, RAE_DECAY } from './core/advantages/rae.ts';
export type { FinishReason, TurnRecord } from './core/protocols/turn-record.ts';
export { toolUse, TOOL_DEFAULTS, type ToolUse } from './core/tools/tool-use.ts';
export type { Tool, ToolArguments } from './core/tools/tool.ts';
export { QWEN3_TOOL_CALL, TOOL_CALL_FORMATS, TOOL_TAG, type ParsedCall, type ToolCallFormat } from './core/tools/call-formats.ts';
export { TOOL_ERROR_CODES, type ToolCallNote, type ToolErrorCode } from './core/tools/tool-calls.ts';
export { ENV_AUTHOR } from './core/trajectory/trajectory.ts';
export { GRADER_JUDGE, type Grader, type Verdict } from './core/grading/verdict.ts';
export type { Problem, Split, Task } from './core/tasks/task.ts';
export {
  fromGroupAdvantages,
  type AdvantageContext,
  type AdvantageEstimator,
  type Advantages,
  type GroupAdvantages,
  type RolloutRewards,
  type StepReward,
} from './core/advantages/estimator.ts';
export { advantageEstimators, groupAdvantages } from './core/advantages/estimators.ts';
export { dropZeroVarianceGroups } from './core/advantages/drop-zero-variance.ts';
export { blendStepAdvantages, stepAdvantages, type StepBlendOptions } from './core/advantages/step-blend.ts';
export { classWeighted, type ClassWeightOptions } from './core/advantages/class-weights.ts';
export { alphaAt, type AlphaSchedule } from './core/advantages/alpha-schedule.ts';
export { judgeAgreement, judgeMetrics } from './core/game/judge-agreement.ts';
export { tangoReward, type TangoRewardOptions } from './plugins/rewards/tango-reward.ts';
export { parseVerification, writeVerification, type ParsedVerification } from './plugins/verdicts/step-verdicts.ts';
export { formatScore } from './plugins/verdicts/format-score.ts';
export { solutionSteps, verifierPrompt } from './plugins/verdicts/verifier-prompt.ts';
export { definePlugin, type LudusPlugin } from './core/plugin-module.ts';
export type { Plugin } from './core/plugin.ts';
export type { AnyGame, Catalog, GameOptions } from './core/catalog.ts';
export { LudusError, type LudusErrorCode } from './core/errors.ts';
export type { LudusEvent, LudusEmitter } from './core/events.ts';
export { boxedAnswerReward } from './plugins/rewards/boxed-answer-reward.ts';
export { gradeMath } from './plugins/graders/math/grade-math.ts';
export { gradeExact } from './plugins/graders/exact/grade-exact.ts';
export { questionPrompt, STEP_SEPARATOR } from './plugins/tasks/prompt.ts';
export { lastBoxed } from './plugins/tasks/jsonl/last-boxed.ts';
export { taskByName } from './plugins/tasks/registry.ts';
export { openMatchSession, type MatchSession, type MatchSessionOptions } from './engine/match/match-session.ts';
export type { PlayedMatch, PlayedTurn } from './engine/match/played-match.ts';
export { train, type TrainResult, type TrainRun } from './engine/trainer/trainer.ts';
export { TrainConfigSchema, type TrainConfig, type TrainConfigInput } from './engine/trainer/train-config.ts';
export type { MetricsLine } from './engine/trainer/metrics-line.ts';
export { EndpointSchema, type Endpoint, type EndpointInput } from './engine/remote/endpoint-config.ts';
export { advantageFor, gameFor } from './engine/trainer/run-pieces.ts';
export { composePlugins } from './composition/compose.ts';
export { pretrain, type PretrainRun } from './lab/pretrain/pretrain.ts';
export { PRETRAIN_PRESETS, PretrainConfigSchema, worldGamePreset, type PretrainConfig } from './lab/pretrain/pretrain-config.ts';
export { pretrainWorldBase, type WorldBaseRun } from './lab/pretrain/pretrain-world.ts';
export { runTournament, type TournamentResult, type TournamentRun } from './lab/tournament/run-tournament.ts';
export { TournamentConfigSchema, type TournamentConfig, type TournamentConfigInput } from './lab/tournament/tournament-config.ts';
export type { Standing } from './lab/tournament/standings.ts';
export { fitBradleyTerry, type BradleyTerryFit } from './core/tournament/bradley-terry.ts';
export { pfspProbabilities, type PfspWeighting } from './core/tournament/pfsp.ts';
export { rateContest, conservativeRating, type RatedSide, type Skill } from './core/tournament/skill-ratings.ts';
