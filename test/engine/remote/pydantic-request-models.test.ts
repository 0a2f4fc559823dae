import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import type { SampleRequest, ScoreRequest } from '../../../engine/remote/dialect.ts';
import { sglangDialect } from '../../../engine/remote/sglang-dialect.ts';
import { vllmDialect } from '../../../engine/remote/vllm-dialect.ts';
import { describeNeeding, PYTHON, pythonMissing } from '../../support/optional.ts';
import { UPSTREAM } from '../../support/upstream-models.ts';

/**
 * pydantic (Debian's python3-pydantic: 1.10 on bookworm, where the servers run 2.x: 1.10 coerces numbers to str and
 * applies no `Field` bound inside `Optional`, so it is the looser judge there, and the TypeScript check of
 * test/support/upstream-models.ts holds the bounds) builds each upstream request model from its copied field declarations (test/fixtures/remote/
 * upstream-request-models.json: the annotations as written; a nested type it cannot see is Any) with undeclared
 * fields forbidden, and validates the bodies ludus sends: pydantic's own
 * type rules, not ours (test/support/upstream-models.ts checks the same bodies in TypeScript).
 */
const VALIDATE = String.raw`
import json, sys
from typing import Annotated, Any, Dict, List, Literal, Optional, Set, Union
import pydantic
from pydantic import Field, ValidationError, create_model

V2 = pydantic.VERSION.startswith('2')
request = json.load(sys.stdin)

class Names(dict):
    def __missing__(self, name):
        return Any

class Forbid:
    extra = 'forbid'

def model(spec):
    names = Names(Annotated=Annotated, Any=Any, Dict=Dict, List=List, Literal=Literal, Optional=Optional, Set=Set, Union=Union, Field=Field,
                  int=int, float=float, bool=bool, str=str, bytes=bytes, dict=dict, list=list, set=set)
    for alias, text in spec.get('aliases', {}).items():
        names[alias] = eval(text, {}, names)
    fields = {name: (Optional[eval(text, {}, names)], None) for name, text in spec['fields'].items()}
    config = pydantic.ConfigDict(extra='forbid') if V2 else Forbid
    built = create_model(spec['model'], __config__=config, **fields)
    return built.model_validate if V2 else built.parse_obj

validators = {key: model(spec) for key, spec in request['models'].items()}
answers = []
for case in request['cases']:
    try:
        validators[case['model']](case['body'])
        answers.append('ok')
    except ValidationError as error:
        answers.append('; '.join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()))
print(json.dumps(answers))
`;

interface Case {
  readonly model: 'vllm' | 'sglangGenerate' | 'sglangSampling';
  readonly body: unknown;
}

function validate(cases: readonly Case[]): string[] {
  const models = { vllm: UPSTREAM.vllm, sglangGenerate: UPSTREAM.sglangGenerate, sglangSampling: UPSTREAM.sglangSampling };
  const run = spawnSync(PYTHON, ['-c', VALIDATE], { input: JSON.stringify({ models, cases }), encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`${PYTHON} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

const sample: SampleRequest = { target: { adapter: 'senior-v3' }, prompt: [5, 6, 7], maxTokens: 4, temperature: 0.6, topP: 0.95, seed: 1234, stopTokenIds: [2, 9], stopStrings: ['\n\n'], eosTokenIds: [2] };
const score: ScoreRequest = { target: { model: 'base' }, sequence: [5, 6, 7, 8, 9], from: 3, temperature: 1 };

/** The bodies ludus sends to each family, split as each server parses them (SGLang's sampling_params on their own). */
function sent(): Case[] {
  const bodies = [vllmDialect.sample(sample), vllmDialect.sample({ ...sample, target: {}, stopStrings: [] }), vllmDialect.score(score)].map(({ body }) => ({ model: 'vllm' as const, body }));
  for (const { body } of [sglangDialect.sample(sample), sglangDialect.sample({ ...sample, eosTokenIds: [] }), sglangDialect.score(score)]) {
    const { sampling_params, ...rest } = body as { sampling_params: unknown };
    bodies.push({ model: 'sglangGenerate' as never, body: rest }, { model: 'sglangSampling' as never, body: sampling_params });
  }
  return bodies;
}

describeNeeding('pydantic (Debian python3-pydantic)', pythonMissing(['pydantic']), 'the upstream request models, built by pydantic from their declarations', () => {
  it('should accept every body ludus sends to vLLM and SGLang, and refuse an undeclared field and a wrong type', () => {
    const bodies = sent();
    const refused: Case[] = [
      { model: 'vllm', body: { prompt: [1, 2], sampling_seed: 3 } },
      { model: 'vllm', body: { prompt: [1, 2], logprobs: 'many' } },
      { model: 'sglangSampling', body: { max_new_tokens: 4, seed: 3 } },
      { model: 'sglangGenerate', body: { input_ids: [1, 2], return_logprob: 'yes please' } },
    ];
    const answers = validate([...bodies, ...refused]);
    expect(answers.slice(0, bodies.length)).toEqual(bodies.map(() => 'ok'));
    answers.slice(bodies.length).forEach((answer, k) => expect({ case: refused[k], answer }).not.toMatchObject({ answer: 'ok' }));
    expect(answers[bodies.length]).toContain('sampling_seed');
  }, 120_000);
});
