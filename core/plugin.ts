import { fail } from './errors.ts';

/**
 * The one shape of every swappable piece (games, advantage estimators, ...): a name a config can use and how to
 * build the piece from that config. Built-in plugins and a user's plugins look the same.
 */
export interface Plugin<Value, Options = void> {
  readonly name: string;
  readonly create: (options: Options) => Value;
}

/** Plugins of one kind by name: a name given twice is refused when the set is made, an unknown one when asked. */
export class PluginSet<Value, Options = void> {
  private readonly byName = new Map<string, Plugin<Value, Options>>();

  constructor(
    readonly kind: string,
    plugins: readonly Plugin<Value, Options>[],
  ) {
    for (const plugin of plugins) {
      if (this.byName.has(plugin.name)) fail('CONFIG_INVALID', `two ${kind} plugins are named "${plugin.name}"`, { kind, name: plugin.name });
      this.byName.set(plugin.name, plugin);
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  create(name: string, options: Options): Value {
    const plugin = this.byName.get(name) ?? fail('CONFIG_INVALID', `no ${this.kind} "${name}" (known: ${this.names.join(', ')})`, { kind: this.kind, name });
    return plugin.create(options);
  }
}
