// One restart at a time: requests that arrive while one runs are served by it or by one more.

/**
 * Runs `stop` then `start`, never two at once. A request made while a restart is stopping the old
 * server is served by that restart (its `start` has not read the settings yet); one made while it is
 * starting gets one more restart after it, however many asked. Every caller's promise settles when
 * a restart that began after its request has finished.
 */
export class SerialRestart {
  private running: Promise<void> | undefined;
  private again = false;
  private readonly stop: () => Promise<void>;
  private readonly start: () => Promise<void>;

  constructor(stop: () => Promise<void>, start: () => Promise<void>) {
    this.stop = stop;
    this.start = start;
  }

  request(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      await this.stop();
      // Asked for while stopping: the start below reads the settings after the request, so it serves it.
      this.again = false;
      await this.start();
    } while (this.again);
  }
}
