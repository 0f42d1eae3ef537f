// Walking the command history with Up and Down, as redis-cli's linenoise
// does: Up from the live line saves it, Down past the newest restores it.
export class HistoryCursor {
  /** Steps back from the newest entry; 0 = the live line. */
  private back = 0;
  private live = '';

  reset(): void {
    this.back = 0;
    this.live = '';
  }

  older(history: readonly string[], current: string): string | null {
    if (this.back >= history.length) return null;
    if (this.back === 0) this.live = current;
    this.back++;
    return history[history.length - this.back];
  }

  newer(history: readonly string[]): string | null {
    if (this.back === 0) return null;
    this.back--;
    return this.back === 0 ? this.live : history[history.length - this.back];
  }
}
