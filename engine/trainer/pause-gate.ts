/** Pause and resume between steps: `wait` returns at once while open and when `resume` is called while paused. */
export class PauseGate {
  private paused: Promise<void> | undefined;
  private release: (() => void) | undefined;

  get isPaused(): boolean {
    return this.paused !== undefined;
  }

  pause(): void {
    this.paused ??= new Promise((resolve) => {
      this.release = resolve;
    });
  }

  resume(): void {
    this.release?.();
    this.paused = undefined;
    this.release = undefined;
  }

  wait(): Promise<void> {
    return this.paused ?? Promise.resolve();
  }
}
