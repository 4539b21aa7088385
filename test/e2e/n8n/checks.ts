/**
 * The runner of the n8n end-to-end scripts (test:e2e:n8n, test:browser:n8n, test:e2e:queue, test:e2e:n8n-agents):
 * each check timed, printed and counted; a failing setup check stops the run, the checks after it count as failed
 * without running. The closing line is the `N passed, N failed` test/run-all.sh counts.
 */

export interface Outcome {
	name: string;
	ok: boolean;
	ms: number;
	/** Why it failed, or why it did not run. */
	detail?: string;
}

export function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

export class CheckRun {
	readonly outcomes: Outcome[] = [];
	private aborted: string | undefined;

	/** `redact` hides the run's secrets (the token) in what a failure prints. */
	constructor(private readonly redact: (text: string) => string = (text) => text) {}

	/**
	 * Runs one check; its body may return a note for the report. A failing check with `stopsRunOnFailure` stops the
	 * run: the checks after it are reported NOT RUN and count as failed. (An arrow property, so `const { check } = run`
	 * works as a plain function.)
	 */
	readonly check = async (name: string, body: () => Promise<string | undefined>, stopsRunOnFailure = false): Promise<void> => {
		if (this.aborted) {
			this.outcomes.push({ name, ok: false, ms: 0, detail: `not run: ${this.aborted}` });
			console.log(`  - ${name}: NOT RUN (${this.aborted})`);
			return;
		}
		const started = Date.now();
		try {
			const note = await body();
			const ms = Date.now() - started;
			this.outcomes.push({ name, ok: true, ms });
			console.log(`  ✓ ${name} (${ms} ms)${note ? ` — ${note}` : ''}`);
		} catch (error) {
			const ms = Date.now() - started;
			const detail = this.redact(error instanceof Error ? error.message : String(error));
			this.outcomes.push({ name, ok: false, ms, detail });
			console.log(`  ✗ ${name} (${ms} ms)\n      ${detail.split('\n').join('\n      ')}`);
			if (stopsRunOnFailure) this.aborted = `"${name}" failed`;
		}
	};

	get passed(): number {
		return this.outcomes.filter((outcome) => outcome.ok).length;
	}

	get failed(): number {
		return this.outcomes.length - this.passed;
	}

	/** The time every check took together. */
	get totalMs(): number {
		return this.outcomes.reduce((sum, outcome) => sum + outcome.ms, 0);
	}

	/** The closing line; an error that ended the run outside any check counts as one more failure. */
	summary(endedByError = false): string {
		return `${this.passed} passed, ${this.failed + (endedByError ? 1 : 0)} failed`;
	}
}
