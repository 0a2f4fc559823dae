import { describe, expect, it } from 'vitest';
import { Spectator } from '../server/hub-clients.ts';
import { serveLudus } from '../server/page/browser.ts';
import { runLudus } from '../support/cli.ts';

describe('ludus match', () => {
  describe('having --no-watch', () => {
    it('should print the transcript with each ply marked by its author, and the same match for the same seed', async () => {
      const args = ['match', 'tandem', '--model', 'default', '--no-watch', '--problem', '3', '--seed', '5', '--max-new-tokens', '64', '--threads', '1'];
      const [a, b] = [await runLudus(args), await runLudus(args)];
      expect(a.code).toBe(0);
      expect(a.stdout).toMatch(/⟨senior⟩/);
      expect(a.stdout).toMatch(/⟨junior⟩/);
      expect(a.stdout).toMatch(/^-- gold \d+: senior (correct|wrong) \(grader\); rewards /m);
      expect(b.stdout).toBe(a.stdout);
      const json = await runLudus([...args, '--json']);
      const line = JSON.parse(json.stdout) as { turns: { plies: { role: string; text: string }[]; text: string }[] };
      expect(line.turns).toHaveLength(1);
      expect(line.turns[0].plies.map((ply) => ply.text).join('')).toBe(line.turns[0].text);
    });

    it('should play any game of a plugin module, a sequential one turn by turn', async () => {
      const result = await runLudus(['match', 'proposer-critic', '--plugin', 'examples/proposer-critic/proposer-critic.ts', '--no-watch', '--json', '--threads', '1']);
      expect(result.code).toBe(0);
      const line = JSON.parse(result.stdout) as { seats: Record<string, string>; turns: { role: string }[]; verdicts: unknown[] };
      expect(line.seats).toEqual({ proposer: 'alice', critic: 'bob' });
      expect(line.turns.map((turn) => turn.role)).toEqual(['proposer', 'critic']);
      expect(line.verdicts).toHaveLength(2);
    });
  });

  describe('having the viewer on', () => {
    it('should stream the match token by token to a spectator, then keep serving until interrupted', async () => {
      const served = await serveLudus(['match', 'grpo', '--port', '0', '--pace', '20', '--max-new-tokens', '48', '--threads', '1']);
      const spectator = new Spectator(served.url.replace('http:', 'ws:') + 'ws');
      await spectator.opened;
      await spectator.next((message) => message.type === 'events' && message.events.some((event) => event.type === 'match-end'), 30_000);
      const tokens = spectator.events.filter((event) => event.type === 'tokens');
      expect(tokens.length).toBeGreaterThan(1);
      expect(tokens.every((event) => event.type === 'tokens' && event.tokens.length === 1 && event.authors[0] === 'senior')).toBe(true);
      expect(served.child.exitCode).toBeNull();
      expect(await served.stop()).toBe(0);
    });
  });
});
