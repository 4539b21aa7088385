import type { SandboxOptions } from './options';
import type { Random } from './random';
import type { Scheduler } from './scheduler';
import type { Workspace } from './workspace';

/**
 * What the sending queue and the webhook dispatcher share with the rest of the sandbox, handed to them when they
 * are built: they never see the runtime that owns them, so neither can reach into its half-built state.
 */
export interface SandboxServices {
	readonly options: SandboxOptions;
	readonly scheduler: Scheduler;
	readonly rng: Random;
	/** False once a reset has replaced the workspace: its late timers and deliveries must not touch the new one. */
	isCurrent(ws: Workspace): boolean;
	/** Marks the state dirty so the state file (if any) is rewritten soon. */
	changed(): void;
	/** Base of the links the sandbox serves itself (attachment links in webhook bodies); known once listening. */
	linkBase(): string;
}
