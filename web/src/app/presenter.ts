// Presenter mode, outside React: large type and high contrast for a
// projector, the page full screen when the browser allows it, and the
// keyboard shortcuts' help dialog.
export interface PresenterState {
  on: boolean;
  /** The shortcuts dialog is open. */
  help: boolean;
}

export class Presenter {
  private state: PresenterState;
  private readonly listeners = new Set<() => void>();

  constructor(on = false) {
    this.state = { on, help: false };
    this.apply();
  }

  getState = (): PresenterState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private set(patch: Partial<PresenterState>): void {
    this.state = { ...this.state, ...patch };
    this.apply();
    for (const fn of this.listeners) fn();
  }

  /** The root element carries the mode, so the stylesheet can scale
   *  everything (rem-based sizes) from one place. */
  private apply(): void {
    document.documentElement.classList.toggle('presenter', this.state.on);
  }

  /** Enters presenter mode; full screen is asked for (it needs the click
   *  or key press that called this, and may be refused: the mode holds
   *  either way). */
  enter(): void {
    this.set({ on: true });
    const root = document.documentElement;
    if (!document.fullscreenElement && root.requestFullscreen) root.requestFullscreen().catch(() => undefined);
  }

  exit(): void {
    this.set({ on: false });
    if (document.fullscreenElement && document.exitFullscreen) document.exitFullscreen().catch(() => undefined);
  }

  toggle(): void {
    if (this.state.on) this.exit();
    else this.enter();
  }

  setHelp(help: boolean): void {
    this.set({ help });
  }
}
