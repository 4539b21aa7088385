#!/usr/bin/env node
import { parseArgs } from 'util';
import { startSandbox } from './index';
import { isWebhookPayload, type SandboxOptions, type WebhookPayload } from './options';

const HELP = `chat-messaging-sandbox: a local Chat Messaging Service API (31 endpoints + /_sandbox control API)

Usage: chat-messaging-sandbox [options]        (in the repository: npm run sandbox -- [options])

  --port N                 TCP port (default 4010; 0 = any free port)
  --host H                 address to listen on (default 127.0.0.1)
  --token T                bearer token; repeat for more workspaces (default: one generated and printed)
  --seed N                 seed of all generated data (default 1)
  --chats N                generated chats per workspace (default 25)
  --accounts N             chat-app accounts per workspace, 1 or 2 (default: chosen by the seed)
  --seed-time ISO|now      instant the generated history ends at (default 2025-06-02T10:00:00Z)
  --utc-offset ±HHMM       workspace timezone of record timestamps (default +0000)
  --pace-ms N              mean pause between two sends of a workspace, ±25 % jitter (default 2000)
  --quota N                message credits per workspace (default 1000)
  --state FILE             load state from FILE and keep it there (atomic writes)
  --latency-ms N           extra delay of each API request (default 0)
  --rate-limit N           requests/second per workspace, burst 10; beyond: 429 (default: off)
  --fault-rate R           share 0..1 of API requests answered 500/502/429 or dropped (default 0)
  --fault-kinds K,K        kinds --fault-rate draws from: http-500, http-502, http-429, drop-before,
                           drop-after, http-500-after (500 after taking effect), slow (takes effect,
                           answers --slow-ms late) (default: the first five)
  --slow-ms N              how late a "slow" fault answers (default 3000)
  --duplicate-rate R       share 0..1 of webhook deliveries sent twice (default 0)
  --delivered-after-ms N   sent → delivered after N ms; 0 = only via the control API (default 1500)
  --read-after-ms N        sent → read after N ms; 0 = only via the control API (default 4000)
  --webhook-retry-ms N     pause between webhook attempts (default 1000)
  --webhook-timeout-ms N   time-out of one webhook attempt (default 5000)
  --webhook-payload spec|spec-exact|live  webhook body shape: spec {event_type, data}, spec-exact
                           (data holds only the spec's fields) or the live service's unwrapped
                           {event_type, chat, chatapp_account, message} (default spec)
  --public-url URL         base URL used in download links (default: the request's Host)
  --empty-list-404         answer a list page holding nothing (past the end, or a filter matching
                           nothing) 404 "Entities not found", as the spec allows for GET /chats
  --log                    log each request to stderr
  --help                   show this help
`;

function number(name: string, value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed)) throw new Error(`--${name} expects a number, got "${value}"`);
	return parsed;
}

function payloadShape(value: string | undefined): WebhookPayload | undefined {
	if (value === undefined || isWebhookPayload(value)) return value;
	throw new Error(`--webhook-payload expects spec, spec-exact or live, got "${value}"`);
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string' },
			host: { type: 'string' },
			token: { type: 'string', multiple: true },
			seed: { type: 'string' },
			chats: { type: 'string' },
			accounts: { type: 'string' },
			'seed-time': { type: 'string' },
			'utc-offset': { type: 'string' },
			'pace-ms': { type: 'string' },
			quota: { type: 'string' },
			state: { type: 'string' },
			'latency-ms': { type: 'string' },
			'rate-limit': { type: 'string' },
			'fault-rate': { type: 'string' },
			'fault-kinds': { type: 'string' },
			'slow-ms': { type: 'string' },
			'duplicate-rate': { type: 'string' },
			'delivered-after-ms': { type: 'string' },
			'read-after-ms': { type: 'string' },
			'webhook-retry-ms': { type: 'string' },
			'webhook-timeout-ms': { type: 'string' },
			'public-url': { type: 'string' },
			'webhook-payload': { type: 'string' },
			log: { type: 'boolean' },
			'empty-list-404': { type: 'boolean' },
			help: { type: 'boolean', short: 'h' },
		},
		strict: true,
	});
	if (values.help) {
		process.stdout.write(HELP);
		return;
	}
	const options: Partial<SandboxOptions> = {
		port: number('port', values.port) ?? 4010,
		host: values.host,
		tokens: values.token ?? [],
		seed: number('seed', values.seed),
		chats: number('chats', values.chats),
		accounts: number('accounts', values.accounts),
		seedTime: values['seed-time'],
		utcOffset: values['utc-offset'],
		paceMs: number('pace-ms', values['pace-ms']),
		quota: number('quota', values.quota),
		statePath: values.state,
		latencyMs: number('latency-ms', values['latency-ms']),
		rateLimit: number('rate-limit', values['rate-limit']),
		faultRate: number('fault-rate', values['fault-rate']),
		faultKinds: values['fault-kinds']?.split(',').map((kind) => kind.trim()) as SandboxOptions['faultKinds'] | undefined,
		slowMs: number('slow-ms', values['slow-ms']),
		duplicateRate: number('duplicate-rate', values['duplicate-rate']),
		deliveredAfterMs: number('delivered-after-ms', values['delivered-after-ms']),
		readAfterMs: number('read-after-ms', values['read-after-ms']),
		webhookRetryMs: number('webhook-retry-ms', values['webhook-retry-ms']),
		webhookTimeoutMs: number('webhook-timeout-ms', values['webhook-timeout-ms']),
		webhookPayload: payloadShape(values['webhook-payload']),
		publicUrl: values['public-url'],
		log: values.log ?? false,
		emptyList404: values['empty-list-404'] ?? false,
	};
	const sandbox = await startSandbox(options);
	const [token] = sandbox.tokens;
	if (token === undefined) {
		await sandbox.stop();
		throw new Error('The sandbox started without a token');
	}
	process.stdout.write(
		`Chat Messaging sandbox listening on ${sandbox.url}\n` +
			`Tokens (one workspace each): ${sandbox.tokens.join(', ')}\n` +
			`Reference: ${sandbox.url}/docs (OpenAPI document: ${sandbox.url}/openapi.json)\n\n` +
			`Try:\n` +
			`  curl -H 'Authorization: Bearer ${token}' ${sandbox.url}/chats\n` +
			`  curl -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\\n` +
			`       -d '{"phone":"+4915112345678","text":"Hello from the sandbox"}' ${sandbox.url}/messages\n` +
			`  curl -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\\n` +
			`       -d '{"phone":"+4915112345678","text":"Hi, a customer here"}' ${sandbox.url}/_sandbox/incoming\n\n` +
			`Ctrl-C stops it.\n`,
	);
	const shutdown = () => {
		void sandbox.stop().then(() => process.exit(0));
	};
	process.once('SIGINT', shutdown);
	process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\nRun with --help for the options.\n`);
	process.exit(1);
});
