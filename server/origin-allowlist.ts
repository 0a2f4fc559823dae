/**
 * Which page origins may open the WebSocket. Browsers always send `Origin`, so a foreign page is refused here;
 * clients that send none (scripts, the benchmark) are not browsers acting for another site and are let in.
 */
export class OriginAllowlist {
  private readonly allowed: ReadonlySet<string>;

  constructor(origins: Iterable<string>) {
    this.allowed = new Set(Array.from(origins, normalizeOrigin));
  }

  /** The viewer's own origins on a loopback port, plus any added with `--allow-origin`. */
  static loopback(port: number, extra: readonly string[] = []): OriginAllowlist {
    return new OriginAllowlist([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...extra]);
  }

  allows(origin: string | undefined): boolean {
    return origin === undefined || this.allowed.has(normalizeOrigin(origin));
  }

  get origins(): readonly string[] {
    return [...this.allowed];
  }
}

function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}
