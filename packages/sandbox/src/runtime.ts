import { randomBytes } from 'crypto';
import { Messaging } from './messaging';
import type { ChatRecord, WorkspaceData } from './model';
import type { SandboxOptions, WebhookPayload } from './options';
import { PayloadBuilder } from './payloads';
import { loadState, saveStateAtomically, type PersistedState } from './persistence';
import { Random, hashSeed } from './random';
import { Renderer } from './render';
import { Scheduler } from './scheduler';
import type { SandboxServices } from './services';
import { generateWorkspace } from './seed';
import { parseUtcOffset } from './time';
import { WebhookDispatcher } from './webhooks';
import { Workspace, WorkspaceDirectory } from './workspace';

/** Debounce of state-file writes: bursts of changes cost one write. */
const SAVE_DEBOUNCE_MS = 100;

/** Everything one sandbox instance holds: workspaces, queues, webhooks, persistence. No HTTP in here. */
export class SandboxRuntime {
	readonly directory = new WorkspaceDirectory();
	readonly scheduler = new Scheduler();
	readonly renderer: Renderer;
	readonly payloads: PayloadBuilder;
	/**
	 * Base of links the sandbox serves itself when there is no request to take the Host from (attachment links in
	 * webhook bodies): `publicUrl`, else the listening address (set by startSandbox once the port is known).
	 */
	baseUrl: string;
	readonly rng: Random;
	readonly events: WebhookDispatcher;
	readonly messaging: Messaging;
	private saveTimer: NodeJS.Timeout | null = null;
	private readonly seedTime: number;

	constructor(readonly options: SandboxOptions) {
		this.rng = new Random(hashSeed(`${options.seed}:runtime`));
		this.renderer = new Renderer(options.downloadSigningKey ?? randomBytes(32).toString('hex'));
		this.payloads = new PayloadBuilder(this.renderer);
		this.baseUrl = options.publicUrl?.replace(/\/+$/, '') ?? `http://${options.host}:${options.port}`;
		const services: SandboxServices = {
			options,
			scheduler: this.scheduler,
			rng: this.rng,
			isCurrent: (ws) => this.directory.byToken.get(ws.token) === ws,
			changed: () => this.changed(),
			linkBase: () => this.baseUrl,
		};
		this.events = new WebhookDispatcher(services, this.payloads);
		this.messaging = new Messaging(services, this.events);
		this.seedTime = options.seedTime === 'now' ? Date.now() : Date.parse(options.seedTime);
		if (Number.isNaN(this.seedTime)) throw new Error(`seedTime must be ISO 8601 or "now": ${options.seedTime}`);
	}

	/** Loads the state file (if any), then adds a seeded workspace for each token not in it. Returns all tokens. */
	init(): string[] {
		const persisted = this.options.statePath ? loadState(this.options.statePath) : null;
		for (const data of persisted?.workspaces ?? []) this.directory.byToken.set(data.token, new Workspace(data, this.options.seed));
		const tokens = [...this.options.tokens];
		if (tokens.length === 0 && this.directory.byToken.size === 0) tokens.push(`sbx_${randomBytes(12).toString('hex')}`);
		for (const token of tokens) {
			if (!this.directory.byToken.has(token)) {
				const ws = new Workspace(this.seedData(token, this.nextWorkspaceNumber()), this.options.seed);
				this.directory.byToken.set(token, ws);
			}
		}
		// Messages still queued when the state was saved resume sending.
		for (const ws of this.directory.list()) this.messaging.pump(ws);
		this.saveNow();
		return [...this.directory.byToken.keys()];
	}

	private nextWorkspaceNumber(): number {
		return Math.max(0, ...this.directory.list().map((w) => w.data.number)) + 1;
	}

	private seedData(token: string, number: number): WorkspaceData {
		return generateWorkspace({
			token,
			number,
			seed: this.options.seed,
			chats: this.options.chats,
			accounts: this.options.accounts,
			quota: this.options.quota,
			seedTime: this.seedTime,
			offsetMinutes: parseUtcOffset(this.options.utcOffset),
		});
	}

	/** Puts a workspace back to its seeded start (same ids), dropping its queue, webhooks and delivery log. */
	reset(ws: Workspace): Workspace {
		const data = this.seedData(ws.token, ws.data.number);
		data.generation = ws.data.generation + 1;
		const fresh = new Workspace(data, this.options.seed);
		this.messaging.forget(ws);
		this.directory.byToken.set(ws.token, fresh);
		this.changed();
		return fresh;
	}

	/** Creates a one-to-one chat (new number) and emits chat:created (in the `payload` shape, default the option's). */
	createDirectChat(ws: Workspace, phone: string, accountId: string, name?: string, payload?: WebhookPayload): ChatRecord {
		const chat: ChatRecord = {
			id: ws.nextId('chat'),
			name: name ?? ws.uniqueName(phone),
			phone,
			jid: `${phone.replace(/^\+/, '')}@c.us`,
			isGroup: false,
			closed: false,
			read: true,
			labels: [],
			aiAutoresponse: false,
			responsibleEmail: null,
			accountId,
			createdAt: Date.now(),
			lastMessageUid: null,
			lastMessageAt: null,
			unattended: false,
			groupMembers: null,
		};
		ws.addChat(chat);
		this.events.emit(ws, 'chat:created', { kind: 'chat', chat }, { payload });
		return chat;
	}

	/** The save every write waiting now will be in (group commit: one save for a burst of writes). */
	private nextSave: Promise<void> | null = null;
	private saveChain: Promise<void> = Promise.resolve();

	/**
	 * Makes every change made so far durable before it resolves (no-op without a state file): an answered
	 * write survives a kill -9. Writes arriving while a save runs share the next one.
	 */
	persist(): Promise<void> {
		if (!this.options.statePath) return Promise.resolve();
		if (!this.nextSave) {
			const save = this.saveChain.then(() => {
				this.nextSave = null;
				this.saveNow();
			});
			this.nextSave = save;
			this.saveChain = save.catch(() => undefined);
		}
		return this.nextSave;
	}

	/** Marks the state dirty; the state file (if any) is rewritten shortly after (timer-driven changes). */
	changed(): void {
		if (!this.options.statePath || this.saveTimer || this.scheduler.isStopped) return;
		this.saveTimer = setTimeout(() => {
			this.saveTimer = null;
			this.saveNow();
		}, SAVE_DEBOUNCE_MS);
	}

	saveNow(): void {
		if (!this.options.statePath) return;
		const state: PersistedState = {
			format: 'chat-messaging-sandbox-state',
			version: 1,
			seed: this.options.seed,
			savedAt: new Date().toISOString(),
			workspaces: this.directory.list().map((w) => w.data),
		};
		saveStateAtomically(this.options.statePath, state);
	}

	stop(): void {
		this.scheduler.stop();
		if (this.saveTimer) clearTimeout(this.saveTimer);
		this.saveTimer = null;
		this.saveNow();
	}
}
