import { describe, expect, it } from 'vitest';
import { runLudus } from '../support/cli.ts';
import { ensureDevice } from '../../native/ort.ts';
import { pythonMissing } from '../support/optional.ts';

const usable = (device: 'webgpu' | 'cuda'): Promise<boolean> => ensureDevice(device).then(() => true, () => false);

describe('ludus bench engine', () => {
  describe('having --device webgpu or cuda on a machine without that GPU', () => {
    for (const [device, hint] of [['webgpu', /missing: .*(libvulkan|Vulkan driver manifest|GPU)/], ['cuda', /ONNXRUNTIME_NODE_INSTALL=cuda12|NVIDIA driver/]] as const) {
      it(`--device ${device}: should fail with DEVICE_UNAVAILABLE and say what is missing, before any work`, async (context) => {
        if (await usable(device)) context.skip();
        const result = await runLudus(['bench', 'engine', '--device', device]);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`[DEVICE_UNAVAILABLE] --device ${device}`);
        expect(result.stderr).toMatch(hint);
        expect(result.stderr).not.toContain('bench:');
      });
    }
  });

  describe('having --json on a micro preset', () => {
    it('should print one JSON line with every measured field, side by side from one run', async () => {
      const result = await runLudus([
        'bench', 'engine', '--json', '--preset', 'qwen3-micro', '--batch', '4', '--new-tokens', '8',
        '--naive-rows', '1', '--train-batch', '2', '--train-len', '16', '--train-steps', '1', '--rss-rollouts', '1', '--torch', 'off',
        // One thread: llama.cpp's workers spin while they wait, which a loaded CI machine punishes without end.
        '--peer', 'llama.cpp', '--threads', '1',
      ]);
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const report = JSON.parse(lines[0]);
      for (const key of ['solo_decode_tok_s', 'tandem_decode_tok_s', 'naive_tandem_tok_s', 'train_tok_s', 'solo_decode_tok_s_b1', 'tandem_decode_tok_s_b1', 'worker_max_gap_ms', 'in_process_max_gap_ms']) {
        expect(report[key], key).toBeGreaterThan(0);
      }
      expect(report.tandem_over_solo).toBeCloseTo(report.tandem_decode_tok_s / report.solo_decode_tok_s, 1);
      expect(report.model_config.model_type).toBe('qwen3');
      expect(report).toMatchObject({ batch: 4, new_tokens: 8, threads: 1, train_batch: 2, train_len: 16 });
      expect(typeof report.decode_rss_growth_mb).toBe('number');
      expect(report.senior_share).toBeGreaterThan(0);
      expect(report.senior_share).toBeLessThan(1);
      for (const key of ['base_decode_tok_s', 'two_adapters_decode_tok_s', 'two_adapters_apart_tok_s', 'tandem_adapter_stacked_tok_s', 'tandem_adapter_members_tok_s', 'tandem_adapter_stacked_tok_s_b1', 'tandem_adapter_members_tok_s_b1', 'full_train_step_ms', 'lora_train_step_ms', 'forward_ms']) {
        expect(report.adapters[key], key).toBeGreaterThan(0);
      }
      expect(report.adapters.two_adapters_over_base).toBeCloseTo(report.adapters.two_adapters_decode_tok_s / report.adapters.base_decode_tok_s, 1);
      expect(report.adapters.lora_trained_params).toBeLessThan(report.adapters.full_trained_params);
      // llama.cpp on the same weights, the same rollouts at B = 4 and 1, and every ratio side by side.
      for (const [batch, ours] of [[4, report.solo_decode_tok_s], [1, report.solo_decode_tok_s_b1]]) {
        expect(report.llama_cpp.settings[`b${batch}`]).toMatchObject({ threads: 1, sequences: batch, sampling: 'greedy' });
        // The peer's rate is its fastest of its KV cache types and flash attention settings.
        const configs = report.llama_cpp.decode[`b${batch}`].configs as { decode_tok_s: number }[];
        expect(configs).toHaveLength(4);
        expect(report.llama_cpp.decode[`b${batch}`].decode_tok_s).toBe(Math.max(...configs.map((c) => c.decode_tok_s)));
        expect(report.llama_cpp.decode[`b${batch}`].tok_s, `B = ${batch}`).toBeGreaterThan(0);
        expect(report.ratios[`decode_over_llama_cpp_b${batch}`]).toBeCloseTo(ours / report.llama_cpp.decode[`b${batch}`].tok_s, 1);
      }
      expect(report.ratios.tandem_over_solo).toBe(report.tandem_over_solo);
    });
  });

  describe('having no --json', () => {
    it('should print a table', async () => {
      const result = await runLudus(['bench', 'engine', '--preset', 'qwen3-micro', '--batch', '2', '--new-tokens', '4', '--naive-rows', '1', '--train-batch', '1', '--train-len', '8', '--train-steps', '1', '--rss-rollouts', '1', '--torch', 'off']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/tandem decode, B=2\s+[\d.]+ tok\/s/);
      expect(result.stdout).toMatch(/two adapters, one base, B=2\s+[\d.]+ tok\/s/);
      expect(result.stdout).toMatch(/tandem, adapter senior over its base junior, B=2\s+[\d.]+ tok\/s co-decoded in one stack vs [\d.]+ with a member per policy/);
    });
  });

  describe('having --real-size on a micro preset', () => {
    it('should run every phase in a process of its own and summarize them side by side', async () => {
      const result = await runLudus([
        'bench', 'engine', '--json', '--real-size', '--preset', 'qwen3-micro', '--batches', '1,2', '--new-tokens', '4',
        '--train-batch', '1', '--train-len', '8', '--train-steps', '1', '--torch', 'off',
      ]);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout.trim());
      expect(Object.keys(report.phases)).toEqual(['checkpoint', 'matmul-peak', 'dtype', 'load', 'score', 'decode', 'adapters', 'train', 'train:lora']);
      expect(report.phases.load.parameters).toBe(23776);
      expect(report.phases.score.logprobs).toHaveLength(256);
      for (const batch of [1, 2]) {
        expect(report.phases.decode[`b${batch}`].solo_tok_s).toBeGreaterThan(0);
        expect(report.summary[`b${batch}`].tandem_over_solo).toBeCloseTo(report.phases.decode[`b${batch}`].tandem_tok_s / report.phases.decode[`b${batch}`].solo_tok_s, 1);
        expect(report.summary[`b${batch}`].efficiency_vs_matmul_peak).toBeGreaterThan(0);
      }
      expect(report.phases.train.train_peak_rss_mb).toBeGreaterThan(0);
      expect(report.summary.lora.lora_peak_rss_mb).toBe(report.phases['train:lora'].train_peak_rss_mb);
      expect(report.summary.lora.lora_over_full_tok_s).toBeGreaterThan(0);
      expect(Object.keys(report.summary.two_adapters_over_base)).toEqual(['b1', 'b2']);
    });
  });

  describe('having --phases adapters on a micro preset', () => {
    it('should write the checkpoint and run only two stacked adapters against the solo decode, each batch side by side', async () => {
      const result = await runLudus(['bench', 'engine', '--json', '--real-size', '--preset', 'qwen3-micro', '--phases', 'adapters', '--batches', '2,4', '--new-tokens', '4', '--repeats', '2', '--torch', 'off']);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout.trim());
      expect(Object.keys(report.phases)).toEqual(['checkpoint', 'adapters']);
      for (const batch of [2, 4]) {
        const row = report.phases.adapters[`b${batch}`];
        expect(row.new_tokens).toBe(4);
        for (const key of ['base_tok_s', 'two_adapters_tok_s', 'two_adapters_over_base', 'two_adapters_over_base_with_prefill']) expect(row[key], key).toBeGreaterThan(0);
        expect(row.two_adapters_over_base).toBeCloseTo(row.two_adapters_tok_s / row.base_tok_s, 2);
        expect(report.summary.two_adapters_over_base[`b${batch}`]).toBe(row.two_adapters_over_base);
        expect(row.two_adapters_over_base_each_repeat).toHaveLength(2);
      }
      expect(report.phases.adapters.adapters_peak_rss_mb).toBeGreaterThan(0);
    });
  });

  describe('having --real-size --phases decode --peer llama.cpp on a micro preset', () => {
    it('should decode the checkpoint in llama.cpp at every batch beside ludus and PyTorch, and list every ratio', async () => {
      const torch = pythonMissing(['torch']) === null;
      const result = await runLudus(['bench', 'engine', '--json', '--real-size', '--preset', 'qwen3-micro', '--phases', 'decode', '--batches', '1,2', '--new-tokens', '4', '--peer', 'llama.cpp', '--threads', '1', '--torch', torch ? 'on' : 'off']);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout.trim());
      expect(Object.keys(report.phases)).toEqual(['checkpoint', 'decode', ...(torch ? ['torch-decode:1', 'torch-decode:2'] : []), 'llama-cpp']);
      for (const batch of [1, 2]) {
        const row = report.summary[`b${batch}`];
        expect(row.llama_cpp_tok_s).toBe(report.phases['llama-cpp'][`b${batch}`].decode_tok_s);
        expect(report.summary.ratios[`decode_over_llama_cpp_b${batch}`]).toBeCloseTo(row.solo_tok_s / row.llama_cpp_tok_s, 1);
        if (torch) expect(report.summary.ratios[`decode_over_torch_b${batch}`]).toBeCloseTo(row.solo_tok_s / row.torch_tok_s, 1);
      }
      expect(report.summary.ratios.tandem_over_solo_b2).toBe(report.phases.decode.b2.tandem_over_solo);
    });
  });

  describe('having an unknown --peer', () => {
    it('should exit 2 with INPUT_INVALID naming the flag and the known peers', async () => {
      const result = await runLudus(['bench', 'engine', '--preset', 'qwen3-micro', '--peer', 'vllm']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID] --peer vllm: unknown vllm (known: llama.cpp)');
    });
  });

  describe('having an unknown name in --phases', () => {
    it('should exit 2 with INPUT_INVALID naming the flag and the known phases', async () => {
      const result = await runLudus(['bench', 'engine', '--real-size', '--preset', 'qwen3-micro', '--phases', 'decode,lora']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID] --phases decode,lora: unknown lora (known: matmul-peak');
    });
  });
});

describe('ludus bench grader', () => {
  describe('having a small run with --json', () => {
    it('should grade every line in process and through ludus grade, with no crash, and report p99 per line', async () => {
      const result = await runLudus(['bench', 'grader', '--lines', '60', '--seed', '3', '--json']);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout.trim());
      expect(report).toMatchObject({ lines: 60, errors: 0, seed: 3, cli: { exit_code: 0, output_lines: 60 } });
      expect(report.extraction).toEqual(['boxed', 'final-answer', 'math-mode', 'bare']);
      expect(report.ms.p99).toBeGreaterThanOrEqual(report.ms.p50);
      expect(report.ms.max).toBeGreaterThanOrEqual(report.ms.p99);
      expect(report.steps.max).toBeGreaterThan(0);
      expect(Object.values(report.families as Record<string, { lines: number }>).reduce((n, f) => n + f.lines, 0)).toBe(60);
    });
  });

  describe('having a bad --lines', () => {
    it('should exit 2 with INPUT_INVALID naming the flag', async () => {
      const result = await runLudus(['bench', 'grader', '--lines', 'many', '--no-cli']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID] --lines');
    });
  });
});

describe('ludus bench remote', () => {
  describe('having a small run with --json', () => {
    it('should measure the same rows in-process and through ludus serve-model, with the tokens span-and-cut threw away, and the same learner steps through ludus serve-trainer', async () => {
      const result = await runLudus(['bench', 'remote', '--json', '--rows', '2', '--tokens', '12', '--spans', '1,3', '--repeats', '1', '--train-steps', '1', '--threads', '1']);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout.trim());
      expect(report.workload).toMatchObject({ rows: 2, tokens: 12, repeats: 1, threads: 1 });
      expect(report.solo.httpOverInProcess).toBeCloseTo(report.solo.httpTokS / report.solo.inProcessTokS, 5);
      const [one, three] = report.tandem.bySpan;
      expect([one.spanTokens, three.spanTokens]).toEqual([1, 3]);
      // Spans of one token are cut nowhere; longer ones are cut at handoffs, and need fewer requests.
      expect(one.wastedFraction).toBe(0);
      expect(three.wastedFraction).toBeGreaterThan(0);
      expect(three.requestsPerRow).toBeLessThan(one.requestsPerRow);
      expect(report.trainer.identical).toBe(true);
      expect(report.trainer.apiOverInProcess).toBeCloseTo(report.trainer.inProcessMs / report.trainer.apiMs, 5);
      // Stopping at EOS generates exactly what is kept; under ignore_eos every row runs to its budget.
      expect(report.sglangStops.generated).toBe(report.sglangStops.kept);
      expect(report.sglangStops.generatedIgnoringEos).toBe(2 * 12);
    });
  });

  describe('having a bad --spans', () => {
    it('should exit 2 with INPUT_INVALID naming the flag', async () => {
      const result = await runLudus(['bench', 'remote', '--spans', '2,zero']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID] --spans');
    });
  });
});

describe('ludus bench number flags', () => {
  describe('having a flag that is not a whole number', () => {
    it('should exit 2 with INPUT_INVALID naming the flag, before measuring anything', async () => {
      for (const [args, flag] of [
        [['bench', 'tokenizer', '--problems', 'abc'], 'problems'],
        [['bench', 'games', '--matches', '0'], 'matches'],
        [['bench', 'tournament', '--copies', '2.5'], 'copies'],
      ] as const) {
        const result = await runLudus([...args]);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(`[INPUT_INVALID] --${flag} `);
        expect(result.stdout).toBe('');
      }
    });
  });
});

describe('ludus bench games', () => {
  describe('having a model that does not load (after its memory sampler started)', () => {
    it('should exit 2 with the coded error instead of hanging on the sampler', async () => {
      const result = await runLudus(['bench', 'games', '--model', '/nonexistent/model'], { timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/\[POLICY_INVALID\]|\[FILE_NOT_FOUND\]|\[CHECKPOINT_MISSING_FILE\]/);
    });
  });
});
