import { afterAll, beforeAll, describe, it } from 'vitest';
import { sglangDialect } from '../../../engine/remote/sglang-dialect.ts';
import { vllmDialect } from '../../../engine/remote/vllm-dialect.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { checkContract } from '../../support/contract-checks.ts';
import { TEST_TOKEN } from '../../support/server-token.ts';

/**
 * The remote contract (test/support/contract-checks.ts) on `ludus serve-model`, and, opt-in, on real servers:
 * LUDUS_VLLM_URL and LUDUS_SGLANG_URL name them, LUDUS_LIVE_PROMPT_IDS (comma-separated) gives token ids valid for
 * their model (default 100,200,300,400,500), and LUDUS_TOKEN their --api-key when they were started with one. docs/scale-out.md, "Rollouts on inference servers", gives the launch flags.
 */
const LIVE_PROMPT = (process.env.LUDUS_LIVE_PROMPT_IDS ?? '100,200,300,400,500').split(',').map((id) => Number(id.trim()));
/** bf16 kernels score a sequence and sample it in different batch shapes: their log-probabilities differ by more than CPU float noise. */
const LIVE_TOLERANCE = 0.05;

describe('the remote contract on ludus serve-model', () => {
  let server: ModelServer;
  let prompt: number[];

  beforeAll(async () => {
    server = await startTestModelServer();
    prompt = server.models.tokenizer.encode('Compute 47 + 38.\n\n');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it.each([vllmDialect, sglangDialect])('should hold in the $name dialect', async (dialect) => {
    await checkContract({ url: server.url, dialect, prompt, tolerance: 1e-3, token: TEST_TOKEN });
  });
});

describe.skipIf(!process.env.LUDUS_VLLM_URL)('the remote contract on a live vLLM server (LUDUS_VLLM_URL)', () => {
  it('should hold', async () => {
    await checkContract({ url: process.env.LUDUS_VLLM_URL!, dialect: vllmDialect, prompt: LIVE_PROMPT, tolerance: LIVE_TOLERANCE, token: process.env.LUDUS_TOKEN });
  }, 300_000);
});

describe.skipIf(!process.env.LUDUS_SGLANG_URL)('the remote contract on a live SGLang server (LUDUS_SGLANG_URL)', () => {
  it('should hold', async () => {
    await checkContract({ url: process.env.LUDUS_SGLANG_URL!, dialect: sglangDialect, prompt: LIVE_PROMPT, tolerance: LIVE_TOLERANCE, token: process.env.LUDUS_TOKEN });
  }, 300_000);
});
