import { closestName } from './closest-name.ts';
import { fail } from './errors.ts';

/**
 * The one shape of every swappable piece (games, advantage estimators, ...): a name a config can use and how to
 * build the piece from that config. Built-in plugins and a user's plugins look the same.
 */
export interface Plugin<Value, Options = void> {
  readonly name: string;
  readonly create: (options: Options) => Value;
  /** Where it came from (the plugin module that provided it), for error messages; set by the composition root. */
  readonly source?: string;
}

/** Plugins of one kind by name: a name given twice is refused when the set is made, an unknown one when asked. */
export class PluginSet<Value, Options = void> {
  private readonly byName = new Map<string, Plugin<Value, Options>>();

  /** `hint(name)`: a word for an unknown name beyond "did you mean" (where an example of that name lives). */
  constructor(
    readonly kind: string,
    plugins: readonly Plugin<Value, Options>[],
    private readonly hint: (name: string) => string | undefined = () => undefined,
  ) {
    for (const plugin of plugins) {
      const clash = this.byName.get(plugin.name);
      if (clash) {
        const from = [clash.source, plugin.source].filter((source) => source !== undefined);
        fail('PLUGIN_CLASH', `two ${kind} plugins are named "${plugin.name}"${from.length > 0 ? ` (from ${from.join(' and ')})` : ''}`, { kind, name: plugin.name, sources: from });
      }
      this.byName.set(plugin.name, plugin);
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): Plugin<Value, Options> {
    const plugin = this.byName.get(name);
    if (plugin) return plugin;
    const hint = this.hint(name);
    const suggestion = hint === undefined ? closestName(name, this.names) : undefined;
    const advice = hint ?? (suggestion === undefined ? '' : `did you mean "${suggestion}"? `);
    return fail('CONFIG_INVALID', `no ${this.kind} "${name}" (${advice}known: ${this.names.join(', ')})`, { kind: this.kind, name, ...(suggestion ? { suggestion } : {}) });
  }

  create(name: string, options: Options): Value {
    return this.get(name).create(options);
  }
}
