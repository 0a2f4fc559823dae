import type { Command } from 'commander';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { pluginOption } from '../run-config.ts';

export function register(program: Command): void {
  program
    .command('games')
    .description('the games in the catalog (built-in and from --plugin modules), one line each; and the other plugins by kind')
    .option(...pluginOption)
    .option('--json', 'print one JSON line')
    .action(async (opts: { plugin: string[]; json?: boolean }) => {
      const catalog = await composePlugins(await loadPluginFiles(opts.plugin));
      const graderOptions = { grader: catalog.graders.create('math'), knobs: {} };
      const games = catalog.games.names.map((name) => {
        const plugin = catalog.games.get(name);
        const game = plugin.create(graderOptions);
        return { name, roles: game.roles, policies: game.policies, trainable: game.trainable, protocol: `${game.protocol.family}:${game.protocol.name}`, rotation: game.rotation.name, source: plugin.source ?? '' };
      });
      const others = {
        advantageEstimators: catalog.advantageEstimators.names,
        protocols: catalog.protocols.names,
        rewardRules: catalog.rewardRules.names,
        rotations: catalog.rotations.names,
        graders: catalog.graders.names,
      };
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ games, ...others })}\n`);
        return;
      }
      for (const g of games) {
        process.stdout.write(`${g.name}  roles ${g.roles.join(',')}  trains ${g.trainable.join(',')}  policies ${g.policies.join(',')}  ${g.protocol}  rotation ${g.rotation}  (${g.source})\n`);
      }
      for (const [kind, names] of Object.entries(others)) process.stdout.write(`${kind}: ${names.join(', ')}\n`);
    });
}
