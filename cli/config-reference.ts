import { z } from 'zod';
import { CalcKnobsSchema } from '../games/calc.ts';
import { EndpointSchema } from '../engine/remote/endpoint-config.ts';
import { GrpoKnobsSchema } from '../games/grpo.ts';
import { KlRegKnobsSchema } from '../games/kl-reg.ts';
import { TandemKnobsSchema } from '../games/tandem.ts';
import { TangoKnobsSchema } from '../games/tango.ts';
import { AgonKnobsSchema } from '../games/agon/agon.ts';
import { WorldKnobsSchema } from '../core/world/world-game.ts';
import { RolloutServersSchema, TrainerServerSchema } from '../engine/remote/remote-config.ts';
import { OpponentPoolSchema, PolicyAdapterSchema, PolicyConfigSchema, TrainConfigSchema } from '../engine/trainer/train-config.ts';
import { MlflowTrackingSchema } from '../engine/trainer/tracking-config.ts';
import { LrScheduleSchema } from '../native/train/lr-schedule.ts';
import {
  EntrantSchema,
  FixturesSchema,
  GameEntrySchema,
  LeagueSchema,
  RatingSettingsSchema,
  RoundRobinSchema,
  SwissSchema,
  TournamentConfigSchema,
} from '../lab/tournament/tournament-config.ts';

/** A config schema documented in the reference: its heading, what it is, and the zod schema its fields come from. */
interface Section {
  readonly title: string;
  readonly intro: string;
  readonly schema: z.ZodType;
}

const SECTIONS: readonly Section[] = [
  { title: 'Training config', intro: '`ludus train GAME --config FILE` (JSON). Every field is optional but `game`, which the command line gives.', schema: TrainConfigSchema },
  { title: 'Policy', intro: 'One entry of `policies`: a policy slot of the game, bound for this run.', schema: PolicyConfigSchema },
  { title: 'Rollout servers', intro: '`rolloutServers`: rollouts on vLLM or SGLang servers (or `ludus serve-model`) over HTTP; the learner stays in-process.', schema: RolloutServersSchema },
  { title: 'Trainer server', intro: '`trainerServer`: every trainable policy learns through the trainer API of `ludus serve-trainer` (ludus\'s own API, modelled on Tinker\'s operations, not Tinker\'s protocol) instead of in-process; rollouts stay wherever `rolloutServers` puts them.', schema: TrainerServerSchema },
  { title: 'Endpoint policies', intro: '`endpoint` of a policy or a tournament entrant, and each entry of an endpoints file (`ludus eval --game G --opponents endpoint:NAME --endpoints FILE`): a frozen policy played from an OpenAI-compatible chat or completions endpoint instead of weights (docs/agentic-turns.md).', schema: EndpointSchema },
  { title: 'LoRA adapter', intro: '`adapter` of a policy: a LoRA adapter trained over its frozen `init` instead of a full copy.', schema: PolicyAdapterSchema },
  { title: 'Opponent pool', intro: "`opponentPool` of a self-play run (a world game's): each step the learner plays, in one seat (the first at even steps, the second at odd ones; ours), a frozen snapshot of itself drawn by PFSP (AlphaStar, Methods) from a pool that starts with its starting weights and gains a snapshot every `snapshotEvery` steps (`RUN/snapshots/<policy>@<step>`); it learns from its own seat only. The pool and the learner's results against each snapshot are checkpointed, so `--resume` continues exactly.", schema: OpponentPoolSchema },
  { title: 'MLflow tracking', intro: '`tracking.mlflow`: the run also logs to an MLflow tracking server, over its REST API: the config as params, every step\'s metrics under their TensorBoard names, tags, and the end status (docs/training.md). A server that is down or refuses is warned about once and training goes on.', schema: MlflowTrackingSchema },
  { title: 'Learning-rate schedule', intro: '`schedule`, at the top level or in a policy.', schema: LrScheduleSchema },
  { title: 'Knobs of `tandem`', intro: '`knobs` when `game` is `tandem` (Tandem RL).', schema: TandemKnobsSchema },
  { title: 'Knobs of `grpo`', intro: '`knobs` when `game` is `grpo` (vanilla GRPO, the papers\' baseline).', schema: GrpoKnobsSchema },
  { title: 'Knobs of `kl-reg`', intro: '`knobs` when `game` is `kl-reg` (the tandem paper\'s KL-Reg ablation).', schema: KlRegKnobsSchema },
  { title: 'Knobs of `tango`', intro: '`knobs` when `game` is `tango` (RL Tango: a generator and a generative step verifier trained together).', schema: TangoKnobsSchema },
  { title: 'Knobs of `agon`', intro: '`knobs` when `game` is `agon` (Agon: two policies drafting and challenging in rotation).', schema: AgonKnobsSchema },
  { title: 'Knobs of `calc`', intro: '`knobs` when `game` is `calc` (a solver with a calculator tool inside its turn; ours, docs/agentic-turns.md).', schema: CalcKnobsSchema },
  { title: 'Knobs of a world game', intro: '`knobs` when `game` is `tictactoe`, `kuhn-poker`, `negotiation` or another world game (docs/world-games.md). A world game\'s run also defaults to `advantage: "rae"`, `validateEvery: 0`, `finalComparison: 0`, `problemsPerStep: 16`, `groupSize: 4`, `microBatchRows: 32` and `schedule.lr: 3e-4` (ours, measured on TicTacToe self-play: 1e-3 lowered the win rate against random, 3e-4 raised it) unless its config says otherwise. `kuhn-poker` defaults `klBeta` to 0.5 (ours, measured: without the KL its self-play stalls where every card bets and calls; docs/world-games.md).', schema: WorldKnobsSchema },
  {
    title: 'Tournament config',
    intro: '`ludus tournament CONFIG` (JSON; docs/tournaments.md). Sampling and learner fields mean what they mean in a training config; the learner fields apply to every trainable entrant that does not set its own.',
    schema: TournamentConfigSchema,
  },
  { title: 'Entrant', intro: 'One entry of `entrants`, with the learner fields of a Policy for a trainable entrant.', schema: EntrantSchema },
  { title: 'Tournament game', intro: 'One entry of a tournament\'s `games`.', schema: GameEntrySchema },
  { title: 'Format `round-robin`', intro: '`format` with `kind: "round-robin"`: every two entrants meet.', schema: RoundRobinSchema },
  { title: 'Format `swiss`', intro: '`format` with `kind: "swiss"`: entrants of similar scores meet, never twice (`tournament-pairings`).', schema: SwissSchema },
  { title: 'Format `league`', intro: '`format` with `kind: "league"`: every trainable entrant meets opponents drawn from the pool by prioritized fictitious self-play (AlphaStar).', schema: LeagueSchema },
  { title: 'Format `fixtures`', intro: '`format` with `kind: "fixtures"`: the same listed pairings every round (an evaluation).', schema: FixturesSchema },
  { title: 'Ratings', intro: 'A tournament\'s `ratings`: openskill\'s Weng–Lin constants and the Bradley–Terry ridge.', schema: RatingSettingsSchema },
];

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
};

/** The type of a field in words: `integer ≥ 1`, `"cosine" | "constant"`, `[number, number]`, `map of Policy`... */
function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' \\| ');
  if (schema.prefixItems) return `[${schema.prefixItems.map(typeOf).join(', ')}]`;
  const type = Array.isArray(schema.type) ? schema.type.join(' \\| ') : schema.type;
  if (type === 'array') return `list of ${schema.items && !Array.isArray(schema.items) ? typeOf(schema.items) : 'values'}`;
  if (type === 'object') return schema.properties ? 'object' : 'map';
  const bounds = [
    schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER ? `≥ ${schema.minimum}` : '',
    schema.exclusiveMaximum !== undefined ? `< ${schema.exclusiveMaximum}` : schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${schema.maximum}` : '',
  ].filter((bound) => bound !== '');
  return [type ?? 'any', ...bounds].join(' ');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function table(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rows = Object.entries(json.properties ?? {}).map(([name, field]) => {
    const required = json.required?.includes(name) && field.default === undefined;
    const preset = field.default === undefined ? (required ? 'required' : '—') : `\`${JSON.stringify(field.default)}\``;
    return `| \`${name}\` | ${typeOf(field)} | ${cell(preset)} | ${cell(field.description ?? '')} |`;
  });
  return ['| field | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * docs/config-reference.md, generated from the zod schemas themselves (their types, bounds, defaults and
 * descriptions), so the reference cannot drift from what the parser accepts. `ludus config-reference` prints it.
 */
export function configReference(): string {
  const parts = [
    '# Config reference',
    '',
    'Generated from the config schemas by `npx ludus config-reference` (a test keeps this file equal to its output).',
    'A default the papers give cites its section; one they do not give is marked as ours. Every level is strict: an',
    'unknown field is refused with the closest known one suggested.',
  ];
  for (const section of SECTIONS) parts.push('', `## ${section.title}`, '', section.intro, '', table(section.schema));
  return `${parts.join('\n')}\n`;
}
