/** Tracks every timer and in-flight outbound request so `stop()` leaves nothing behind (jest exits cleanly). */
export class Scheduler {
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly controllers = new Set<AbortController>();
	private stopped = false;

	get isStopped(): boolean {
		return this.stopped;
	}

	after(ms: number, task: () => void): void {
		if (this.stopped) return;
		const timer = setTimeout(
			() => {
				this.timers.delete(timer);
				if (!this.stopped) task();
			},
			Math.max(0, ms),
		);
		this.timers.add(timer);
	}

	/** Resolves after `ms`, or early (with false) when the sandbox stops. */
	sleep(ms: number): Promise<boolean> {
		return new Promise((resolve) => {
			if (this.stopped) return resolve(false);
			const timer = setTimeout(
				() => {
					this.timers.delete(timer);
					this.sleepers.delete(resolve);
					resolve(!this.stopped);
				},
				Math.max(0, ms),
			);
			this.timers.add(timer);
			this.sleepers.add(resolve);
		});
	}

	private readonly sleepers = new Set<(value: boolean) => void>();

	/** An AbortController that stop() aborts, plus a time-out. Call `done` when the request settles. */
	controller(timeoutMs: number): { signal: AbortSignal; done: () => void } {
		const controller = new AbortController();
		this.controllers.add(controller);
		const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
		return {
			signal: controller.signal,
			done: () => {
				clearTimeout(timer);
				this.controllers.delete(controller);
			},
		};
	}

	stop(): void {
		this.stopped = true;
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		for (const resolve of this.sleepers) resolve(false);
		this.sleepers.clear();
		for (const controller of this.controllers) controller.abort(new Error('sandbox stopped'));
		this.controllers.clear();
	}
}
