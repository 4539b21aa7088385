/**
 * What the cases of the n8n end-to-end run (run.ts) share: the run's token and checks, the sandbox seen from the
 * outside (its public API with the token, its control API), the n8n instance, and what one case leaves for the next
 * (the package's node versions, the chats picked, the trigger's subscription).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert, CheckRun } from './checks';
import type { CliResult, N8nInstance, N8nRun } from './n8n-instance';
import type { RecordingProxy } from '../../support/recording-proxy';
import { TRIGGER_WEBHOOK_ID, WORKFLOW_IDS } from './workflows';
import { sandboxClient } from '../../support/harness';

export const CHAT_COUNT = 130;

/** One check of the run: its name as printed, and its body, which may return a note for the report. */
export interface Case {
	name: string;
	/** A setup step: when it fails, the checks after it do not run (and count as failed). */
	stopsRunOnFailure?: boolean;
	run(e: N8nE2e): Promise<string | undefined>;
}

export function required<T>(value: T | undefined, what: string): T {
	assert(value !== undefined, `${what} is missing`);
	return value;
}

export function equalSets(actual: string[], expected: string[]): boolean {
	const a = [...new Set(actual)].sort();
	const b = [...new Set(expected)].sort();
	return a.length === actual.length && a.length === b.length && a.every((value, i) => value === b[i]);
}

export function describeCli(cli: CliResult): string {
	const tail = (text: string) => text.trim().split('\n').slice(-8).join('\n');
	return `exit code ${cli.code}${cli.signal ? ` (ended by ${cli.signal})` : ''}\nstdout: ${tail(cli.stdout)}\nstderr: ${tail(cli.stderr)}`;
}

export interface SandboxChat {
	id: number;
	name: string;
	phone: string | null;
	is_group: boolean;
	labels: string[];
}

export interface SandboxWebhook {
	id: number;
	event_type: string;
	url: string;
	enabled: boolean;
}

export type Items = Array<{ json: Record<string, unknown> }>;

export type Execution = {
	id: string;
	status: string;
	finished: boolean;
	mode?: string;
	data?: { resultData: N8nRun['data']['resultData'] };
};

/** Every main output of a node in a run (index 1 is the error output under "Continue (using error output)"). */
export function nodeOutputs(run: N8nRun | undefined, nodeName: string): Items[] {
	assert(run, 'n8n printed no run JSON');
	const error = run.data.resultData.error;
	assert(!error, `the execution failed: ${error?.message ?? ''} ${error?.description ?? ''}`);
	const runs = run.data.resultData.runData[nodeName];
	assert(runs && runs.length > 0, `node "${nodeName}" did not run`);
	return (runs[runs.length - 1].data?.main ?? []).map((items) => items ?? []);
}

/** Output items of a node in a run, or a readable reason why there are none. */
export function nodeItems(run: N8nRun | undefined, nodeName: string): Items {
	return nodeOutputs(run, nodeName)[0] ?? [];
}

export class N8nE2e {
	readonly token = `e2e_${randomBytes(16).toString('hex')}`;
	/** Never print the token, even inside an error message. */
	readonly redact = (text: string) => text.split(this.token).join('<token>');
	readonly checks = new CheckRun((text) => this.redact(text));
	readonly workDir = mkdtempSync(join(tmpdir(), 'chat-messaging-n8n-e2e-'));
	readonly logDir = join(this.workDir, 'logs');
	readonly userFolder = join(this.workDir, 'n8n-user');
	/** Everything the n8n CLI printed, searched for the token at the end. */
	readonly cliOutputs: string[] = [];

	nodeBin = '';
	n8nBin = '';
	tarball = '';
	// The workflows of workflows.ts were written for version 1 of the action node, as users saved them before version 2.
	readonly actionVersion = 1;
	actionVersions: number[] = [];
	actionDefaultVersion = 1;
	triggerVersion = 1;

	sandboxUrl = '';
	stopSandbox: (() => Promise<void>) | undefined;
	allChats: SandboxChat[] = [];
	n8n: N8nInstance | undefined;
	proxy: RecordingProxy | undefined;
	/** The trigger's subscription at the sandbox, once activated. */
	subscription: SandboxWebhook | undefined;

	readonly sendPhone = '+4915199' + String(Date.now()).slice(-5);
	readonly sendText = `E2E hello from n8n ${randomBytes(4).toString('hex')}\nsecond line ✓`;
	readonly labelsToAdd = ['e2e-added-1', 'e2e-added-2'];
	readonly labelsReplacement = ['e2e-replaced'];
	readonly v2Text = `E2E v2 Send To Chat Name ${randomBytes(4).toString('hex')}`;
	readonly errorPhones = ['+4915188' + String(Date.now()).slice(-5), '+49 151 not valid', '+4915177' + String(Date.now()).slice(-5)];

	constructor() {
		mkdirSync(this.logDir);
	}

	/** A direct chat with a phone: the one labelled and read. */
	get labelChat(): SandboxChat | undefined {
		return this.allChats.find((chat) => !chat.is_group && chat.phone);
	}

	/** Another direct chat with a phone: the one inbound messages come from. */
	get inboundChat(): SandboxChat | undefined {
		return this.allChats.filter((chat) => !chat.is_group && chat.phone).at(-1);
	}

	readonly running = (): N8nInstance => required(this.n8n, 'the n8n instance');

	/** The requests the recording proxy in front of the sandbox saw (`METHOD /path?query`). */
	recorded(): string[] {
		return required(this.proxy, 'the recording proxy').requests;
	}

	readonly sandbox = <T = unknown>(method: string, path: string, body?: unknown): Promise<T> =>
		sandboxClient(this.sandboxUrl, this.token).data<T>(method, path, body);

	/** Every chat, page by page, straight from the sandbox. */
	async sandboxChats(query = ''): Promise<SandboxChat[]> {
		const chats: SandboxChat[] = [];
		for (let page = 1; ; page++) {
			const data = await this.sandbox<{ chats: SandboxChat[]; has_more_pages: boolean }>('GET', `/chats?${query}page=${page}`);
			chats.push(...data.chats);
			if (!data.has_more_pages) return chats;
			assert(page < 100, 'the sandbox reports more pages forever');
		}
	}

	async sandboxWebhooks(): Promise<SandboxWebhook[]> {
		const data = await this.sandbox<SandboxWebhook[] | { webhooks: SandboxWebhook[] }>('GET', '/webhooks');
		return Array.isArray(data) ? data : data.webhooks;
	}

	/** The sandbox's subscriptions of the webhook trigger's workflow. */
	async ourHooks(): Promise<SandboxWebhook[]> {
		return (await this.sandboxWebhooks()).filter((hook) => hook.url.includes(TRIGGER_WEBHOOK_ID));
	}

	/** The executions of the webhook trigger's workflow, with their data. */
	async executions(): Promise<Execution[]> {
		const listed = await this.running().publicApi('GET', `/executions?workflowId=${WORKFLOW_IDS.trigger}&includeData=true`);
		assert(listed.status === 200, `executions answered ${listed.status}`);
		return (listed.body as { data: Execution[] }).data;
	}

	/** Executes a manual-trigger workflow with the CLI; keeps its output for the token check. */
	async execute(id: string): Promise<Awaited<ReturnType<N8nInstance['execute']>>> {
		const result = await this.running().execute(id);
		this.cliOutputs.push(result.cli.stdout, result.cli.stderr);
		return result;
	}
}
